/** Withdrawing a pending invite (SPEC §4.11), by a team admin. */
import { Effect } from "effect"
import type { InviteId } from "../Ids.ts"
import type { Caller } from "../user/Caller.ts"
import { InviteRepository } from "./InviteRepository.ts"
import { closedReason, managedInvite, nowIso, outcomeOf, whyStale } from "./InviteSteps.ts"

/** Revokes the invite; one already closed answers why. */
export const revokeInvite = Effect.fn("Invites.revoke")(function* (caller: Caller, id: InviteId) {
  const { invite } = yield* managedInvite(caller, id)
  const closed = closedReason(invite, yield* nowIso)
  if (closed !== undefined) return yield* closed
  const now = yield* nowIso
  const stored = yield* InviteRepository.use((invites) =>
    invites.transition(id, "pending", "revoked", { patch: { updated_at: now } })
  ).pipe(Effect.catchTag("StaleState", () => whyStale(id)))
  return outcomeOf(stored)
})
