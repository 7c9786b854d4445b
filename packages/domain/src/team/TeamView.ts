/** A team as `GET /v2/teams/{team_nanoid}` shows it: its admins and finance admins, and its balance to those who may read it. */
import { Effect } from "effect"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { isAllowed } from "../membership/Permission.ts"
import type { Role } from "../membership/Role.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { Team, TeamView } from "./Team.ts"
import { TeamBalances } from "./TeamBalances.ts"

/**
 * The view of `team`: its administrators (with their profiles) and, for a `role` that may read the balance
 * (`balance.read`), its balance in cents.
 */
export const teamViewOf = Effect.fn("Teams.viewOf")(function* (team: Team, role: Role) {
  const admins = yield* MembershipRepository.use((m) =>
    m.listTeam(team.nanoid, { roles: ["team_admin", "team_finance_admin"], offset: 0, limit: undefined })
  )
  const profiles = new Map(
    (yield* UserRepository.use((u) => u.findByIds(admins.members.map((m) => m.user_nanoid)))).map((u) => [u.nanoid, u])
  )
  return {
    nanoid: team.nanoid,
    name: team.name,
    avatar: team.avatar,
    ...(isAllowed(role, "balance.read") ? { balance: yield* TeamBalances.use((b) => b.balanceCents(team)) } : {}),
    administrators: admins.members.map((m) => {
      const user = profiles.get(m.user_nanoid)
      return {
        relationship_nanoid: m.nanoid,
        user_nanoid: m.user_nanoid,
        avatar: user?.avatar ?? "",
        first_name: user?.first_name ?? "",
        last_name: user?.last_name ?? "",
        email: user?.email ?? "",
        type: m.role
      }
    })
  } satisfies TeamView
})
