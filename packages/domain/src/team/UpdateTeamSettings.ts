/** Changing a team's settings (SPEC §4.10): the fields given, the others as they were. */
import { Effect, Option } from "effect"
import type { TeamId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { SettingsRepository } from "./SettingsRepository.ts"
import { defaultTeamSettings, type UpdateTeamSettingsBody } from "./TeamSettings.ts"

/** Applies the changes (`team.settings.update`); answers the settings. */
export const updateTeamSettings = Effect.fn("Teams.updateSettings")(function* (
  caller: Caller,
  team: TeamId,
  changes: UpdateTeamSettingsBody
) {
  yield* TeamAccess.use((access) => access.authorize(caller, team, "team.settings.update"))
  const settings = yield* SettingsRepository
  const next = { ...Option.getOrElse(yield* settings.getTeam(team), () => defaultTeamSettings), ...changes }
  yield* settings.putTeam(team, next)
  return next
})
