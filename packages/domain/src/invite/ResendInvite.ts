/** Sending a pending invite again (SPEC §4.11): a new token (the old link stops working) and a new lifetime. */
import { Effect } from "effect"
import type { InviteId } from "../Ids.ts"
import { MailOutbox } from "../mail/MailOutbox.ts"
import { IllegalTransition } from "../StateMachine.ts"
import { UnitOfWork } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import type { Invite } from "./Invite.ts"
import { InviteRepository } from "./InviteRepository.ts"
import { InviteSettings } from "./InviteSettings.ts"
import { closedReason, inviteMailFor, later, managedInvite, nowIso, outcomeOf, whyStale } from "./InviteSteps.ts"
import { makeInviteToken } from "./InviteToken.ts"

/** Renews the invite's token and lifetime and mails it again; an admin invite has no link to send. */
export const resendInvite = Effect.fn("Invites.resend")(function* (caller: Caller, id: InviteId) {
  const { invite, team } = yield* managedInvite(caller, id)
  const closed = closedReason(invite, yield* nowIso)
  if (closed !== undefined) return yield* closed
  // An admin invite is answered by its wallet signed in, never by a mailed link.
  if (invite.kind === "admin") {
    return yield* new IllegalTransition({ machine: "admin invite", from: invite.state, trigger: "resend" })
  }
  const { token, hash } = yield* makeInviteToken
  const renewed: Invite = {
    ...invite,
    token_hash: hash,
    expires_at: yield* later((yield* InviteSettings).ttlMillis),
    updated_at: yield* nowIso
  }
  const mail = yield* inviteMailFor(renewed, token, team)
  // The new token and its mail in one unit: a resend that lost a race queues nothing.
  const stored = yield* UnitOfWork.use((unit) =>
    unit.run(
      Effect.tap(
        InviteRepository.use((invites) =>
          invites.transition(id, "pending", "pending", {
            tokenHash: invite.token_hash,
            patch: { token_hash: hash, expires_at: renewed.expires_at, updated_at: renewed.updated_at }
          })
        ),
        () => MailOutbox.use((outbox) => outbox.enqueue([mail]))
      )
    )
  ).pipe(Effect.catchTag("StaleState", () => whyStale(id)))
  return outcomeOf(stored)
})
