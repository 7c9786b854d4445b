/** Changing a team's name, description or avatar (SPEC §4.2). */
import { DateTime, Effect } from "effect"
import type { TeamId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import type { UpdateTeamBody } from "./Team.ts"
import { TeamNotFound } from "./TeamNotFound.ts"
import { TeamRepository } from "./TeamRepository.ts"
import { teamViewOf } from "./TeamView.ts"

/** Applies the changes (`team.update`) and answers the team's view. */
export const updateTeam = Effect.fn("Teams.update")(function* (caller: Caller, team: TeamId, changes: UpdateTeamBody) {
  const { membership } = yield* TeamAccess.use((access) => access.authorize(caller, team, "team.update"))
  const at = DateTime.formatIso(yield* DateTime.now)
  const updated = yield* TeamRepository.use((teams) => teams.update(team, { ...changes, updated_at: at }))
  if (updated._tag === "None") return yield* new TeamNotFound({ team })
  return yield* teamViewOf(updated.value, membership.role)
})
