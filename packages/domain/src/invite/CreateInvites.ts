/** Inviting members by e-mail (SPEC §4.11): one pending invite and one mail per e-mail, for a team admin. */
import { Effect } from "effect"
import { IdGenerator } from "../Ids.ts"
import { MailOutbox } from "../mail/MailOutbox.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { UnitOfWork } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import { type Invite, inviteeNameOf } from "./Invite.ts"
import { InviteRepository } from "./InviteRepository.ts"
import type { CreateInvitesRequest } from "./InviteRequests.ts"
import { InviteSettings } from "./InviteSettings.ts"
import { inviteMailFor, later, nowIso } from "./InviteSteps.ts"
import { makeInviteToken } from "./InviteToken.ts"

/** Creates the invites and queues their mails in one unit of work; answers their ids in request order. */
export const createInvites = Effect.fn("Invites.create")(function* (caller: Caller, body: CreateInvitesRequest) {
  const { team } = yield* TeamAccess.use((access) => access.authorize(caller, body.nanoid, "invites.create"))
  const now = yield* nowIso
  const expires_at = yield* later((yield* InviteSettings).ttlMillis)
  const ids = yield* IdGenerator
  const made = yield* Effect.forEach(body.invites, (entry) =>
    Effect.gen(function* () {
      const { token, hash } = yield* makeInviteToken
      const invite: Invite = {
        nanoid: yield* ids.make("invite"),
        team_nanoid: team.nanoid,
        company_nanoid: team.company_nanoid,
        kind: "member",
        role: body.role,
        email: entry.email,
        invitee_name: inviteeNameOf(entry),
        inviter_nanoid: caller.nanoid,
        anonymous: body.anonymous,
        ...(entry.prefill === undefined ? {} : { prefill: entry.prefill }),
        state: "pending",
        token_hash: hash,
        expires_at,
        created_at: now,
        updated_at: now
      }
      return { invite, mail: yield* inviteMailFor(invite, token, team) }
    })
  )
  yield* UnitOfWork.use((unit) =>
    unit.run(
      Effect.andThen(
        InviteRepository.use((invites) => invites.create(made.map((m) => m.invite))),
        MailOutbox.use((outbox) => outbox.enqueue(made.map((m) => m.mail)))
      )
    )
  )
  return { nanoids: made.map((m) => m.invite.nanoid) }
})
