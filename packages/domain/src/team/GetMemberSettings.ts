/** A member's settings in a team (SPEC §4.12), the defaults until changed. */
import { Effect, Option } from "effect"
import type { TeamId, UserId } from "../Ids.ts"
import { memberOf } from "../membership/MemberOf.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { SettingsRepository } from "./SettingsRepository.ts"
import { defaultMemberSettings } from "./TeamSettings.ts"

/** The member's settings (`member.settings.read`); `MemberNotFound` for someone not in the team. */
export const getMemberSettings = Effect.fn("Teams.memberSettings")(function* (
  caller: Caller,
  team: TeamId,
  user: UserId
) {
  yield* TeamAccess.use((access) => access.authorize(caller, team, "member.settings.read", user))
  yield* memberOf(team, user)
  return Option.getOrElse(yield* SettingsRepository.use((s) => s.getMember(team, user)), () => defaultMemberSettings)
})
