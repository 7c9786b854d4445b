/**
 * Authorisation of team routes: the caller's membership in the named team decides (docs/authorization.md).
 */
import type { TeamId, UserId } from "@svc/domain/Ids"
import { type Action, isAllowed, MembershipRepository } from "@svc/domain/membership"
import { TeamRepository } from "@svc/domain/team"
import { Effect } from "effect"
import { apiError } from "../ApiError.ts"
import { CurrentUser } from "../Authentication.ts"

/**
 * The active team and the caller's membership, when the caller may take `action` there. An unknown or deleted team
 * is 404 TEAM_NOT_FOUND; a team the caller is not a member of, or a role without the permission, 403.
 * `subject` is the user the action is about, when there is one (self-service actions).
 */
export const authorize = Effect.fn("TeamAccess.authorize")(function* (team: TeamId, action: Action, subject?: UserId) {
  const me = yield* CurrentUser
  const teams = yield* TeamRepository
  const memberships = yield* MembershipRepository
  const found = yield* teams.findById(team)
  if (found._tag === "None" || found.value.status !== "active") return yield* Effect.fail(apiError("TEAM_NOT_FOUND"))
  const membership = yield* memberships.find(team, me.nanoid)
  if (membership._tag === "None") {
    return yield* Effect.fail(apiError("INSUFFICIENT_PERMISSIONS", "You are not a member of this team"))
  }
  if (!isAllowed(membership.value.role, action, subject === me.nanoid)) {
    return yield* Effect.fail(apiError("INSUFFICIENT_PERMISSIONS"))
  }
  return { team: found.value, membership: membership.value, me }
})
