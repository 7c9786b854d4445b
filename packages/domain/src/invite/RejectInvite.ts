/** Declining an invite (SPEC §4.11): the signed-in invitee (a manager invite: the wallet it grants to) says no. */
import { Effect, Option } from "effect"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import type { Invite } from "./Invite.ts"
import { InviteRepository } from "./InviteRepository.ts"
import type { AnswerInviteRequest } from "./InviteRequests.ts"
import { inviteEventOf, invitePayloadOf, nowIso, openedInvite, outcomeOf, whyStale } from "./InviteSteps.ts"

/** Rejects the invite the token opens, with its `invite.rejected`. */
export const rejectInvite = Effect.fn("Invites.reject")(function* (caller: Caller, body: AnswerInviteRequest) {
  const { invite, tokenHash } = yield* openedInvite(caller, body)
  const team = yield* TeamRepository.use((t) => t.findById(invite.team_nanoid))
  const now = yield* nowIso
  const rejected: Invite = { ...invite, state: "rejected", user_nanoid: caller.nanoid, updated_at: now }
  const event = yield* inviteEventOf(rejected, Option.getOrUndefined(team), {
    type: "invite.rejected",
    data: invitePayloadOf(rejected, "rejected")
  })
  const stored = yield* withEvents(
    InviteRepository.use((invites) =>
      invites.transition(invite.nanoid, "pending", "rejected", {
        tokenHash,
        patch: { user_nanoid: caller.nanoid, updated_at: now }
      })
    ),
    () => [event]
  ).pipe(Effect.catchTag("StaleState", () => whyStale(invite.nanoid)))
  return outcomeOf(stored)
})
