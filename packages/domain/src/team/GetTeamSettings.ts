/** A team's settings (SPEC §4.10), the defaults until changed. */
import { Effect, Option } from "effect"
import type { TeamId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { SettingsRepository } from "./SettingsRepository.ts"
import { defaultTeamSettings } from "./TeamSettings.ts"

/** The team's settings (`team.settings.read`). */
export const getTeamSettings = Effect.fn("Teams.settings")(function* (caller: Caller, team: TeamId) {
  yield* TeamAccess.use((access) => access.authorize(caller, team, "team.settings.read"))
  return Option.getOrElse(yield* SettingsRepository.use((s) => s.getTeam(team)), () => defaultTeamSettings)
})
