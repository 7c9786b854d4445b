/** A member's membership of a team, or `MemberNotFound`: what the member use cases look up first. */
import { Effect } from "effect"
import type { TeamId, UserId } from "../Ids.ts"
import { MemberNotFound } from "./MembershipErrors.ts"
import { MembershipRepository } from "./MembershipRepository.ts"

/** The membership of `user` in `team`, or `MemberNotFound`. */
export const memberOf = Effect.fn("Members.memberOf")(function* (team: TeamId, user: UserId) {
  const membership = yield* MembershipRepository.use((m) => m.find(team, user))
  if (membership._tag === "None") return yield* new MemberNotFound({ team, user })
  return membership.value
})
