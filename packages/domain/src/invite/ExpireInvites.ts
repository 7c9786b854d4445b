/** Expiring invites left unanswered past their lifetime (the invite expiry worker), each with its `invite.expired`. */
import { Effect, Option } from "effect"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Invite } from "./Invite.ts"
import { InviteRepository } from "./InviteRepository.ts"
import { inviteEventOf, invitePayloadOf, nowIso } from "./InviteSteps.ts"

/** Expires up to `limit` pending invites whose lifetime passed; answers how many it moved. */
export const expireInvites = Effect.fn("Invites.expireDue")(function* (limit: number) {
  const invites = yield* InviteRepository
  const due = yield* invites.listExpired(yield* nowIso, limit)
  let expired = 0
  for (const invite of due) {
    const team = yield* TeamRepository.use((t) => t.findById(invite.team_nanoid))
    const now = yield* nowIso
    const moved: Invite = { ...invite, state: "expired", updated_at: now }
    const event = yield* inviteEventOf(moved, Option.getOrUndefined(team), {
      type: "invite.expired",
      data: invitePayloadOf(moved, "expired")
    })
    // Another worker, or the invitee, may have moved it first: then there is nothing to do.
    const done = yield* withEvents(
      invites.transition(invite.nanoid, "pending", "expired", { patch: { updated_at: now } }),
      () => [event]
    ).pipe(
      Effect.as(true),
      Effect.catch(() => Effect.succeed(false))
    )
    if (done) expired++
  }
  return expired
})
