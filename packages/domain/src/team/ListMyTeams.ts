/** The caller's teams (SPEC §4.2, GET /v2/user/teams): the active teams they are a member of, with their role. */
import { Effect } from "effect"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import type { Caller } from "../user/Caller.ts"
import type { TeamListItem } from "./Team.ts"
import { TeamRepository } from "./TeamRepository.ts"

/** The active teams the caller is a member of, with the caller's role and each team's member count. */
export const listMyTeams = Effect.fn("Teams.listMine")(function* (caller: Caller) {
  const memberships = yield* MembershipRepository
  const mine = yield* memberships.listByUser(caller.nanoid)
  const active = (yield* TeamRepository.use((t) => t.findByIds(mine.map((m) => m.team_nanoid)))).filter(
    (t) => t.status === "active"
  )
  const counts = yield* memberships.countByTeams(active.map((t) => t.nanoid))
  const byId = new Map(active.map((t) => [t.nanoid, t]))
  return mine.flatMap((m): Array<TeamListItem> => {
    const team = byId.get(m.team_nanoid)
    if (team === undefined) return []
    return [
      {
        nanoid: team.nanoid,
        name: team.name,
        description: team.description,
        member_count: counts.get(team.nanoid) ?? 0,
        status: team.status,
        role: m.role
      }
    ]
  })
})
