/** Changing a member's settings in a team (SPEC §4.12): the fields given, the others as they were. */
import { Effect, Option } from "effect"
import type { TeamId, UserId } from "../Ids.ts"
import { memberOf } from "../membership/MemberOf.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { SettingsRepository } from "./SettingsRepository.ts"
import { defaultMemberSettings, type UpdateMemberSettingsBody } from "./TeamSettings.ts"

/** Applies the changes (`member.settings.update`); `MemberNotFound` for someone not in the team. */
export const updateMemberSettings = Effect.fn("Teams.updateMemberSettings")(function* (
  caller: Caller,
  team: TeamId,
  user: UserId,
  changes: UpdateMemberSettingsBody
) {
  yield* TeamAccess.use((access) => access.authorize(caller, team, "member.settings.update", user))
  yield* memberOf(team, user)
  const settings = yield* SettingsRepository
  const next = { ...Option.getOrElse(yield* settings.getMember(team, user), () => defaultMemberSettings), ...changes }
  yield* settings.putMember(team, user, next)
  return next
})
