/**
 * The settings use cases (SPEC §4.10, §4.12) as one service: a team's settings and a member's, each in a file of
 * its own, for a caller the access check lets through.
 */
import { Context, type Effect, Layer } from "effect"
import type { TeamId, UserId } from "../Ids.ts"
import type { MemberNotFound } from "../membership/MembershipErrors.ts"
import type { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { Caller } from "../user/Caller.ts"
import { getMemberSettings } from "./GetMemberSettings.ts"
import { getTeamSettings } from "./GetTeamSettings.ts"
import type { SettingsRepository } from "./SettingsRepository.ts"
import type { MemberSettings, TeamSettings, UpdateMemberSettingsBody, UpdateTeamSettingsBody } from "./TeamSettings.ts"
import type { TeamError } from "./Teams.ts"
import { updateMemberSettings } from "./UpdateMemberSettings.ts"
import { updateTeamSettings } from "./UpdateTeamSettings.ts"

type SettingsPorts = TeamAccess | SettingsRepository | MembershipRepository

/** Team and member settings, for a caller. */
export class Settings extends Context.Service<
  Settings,
  {
    readonly team: (caller: Caller, team: TeamId) => Effect.Effect<TeamSettings, TeamError>
    readonly updateTeam: (
      caller: Caller,
      team: TeamId,
      changes: UpdateTeamSettingsBody
    ) => Effect.Effect<TeamSettings, TeamError>
    readonly member: (
      caller: Caller,
      team: TeamId,
      user: UserId
    ) => Effect.Effect<MemberSettings, TeamError | MemberNotFound>
    readonly updateMember: (
      caller: Caller,
      team: TeamId,
      user: UserId,
      changes: UpdateMemberSettingsBody
    ) => Effect.Effect<MemberSettings, TeamError | MemberNotFound>
  }
>()("@svc/domain/team/Settings") {
  /** On the settings and membership repositories, and `TeamAccess`. */
  static readonly layer = useCaseLayer<SettingsPorts>()(Settings, (run) => ({
    team: (caller, team) => run(getTeamSettings(caller, team)),
    updateTeam: (caller, team, changes) => run(updateTeamSettings(caller, team, changes)),
    member: (caller, team, user) => run(getMemberSettings(caller, team, user)),
    updateMember: (caller, team, user, changes) => run(updateMemberSettings(caller, team, user, changes))
  })).pipe(Layer.provide(TeamAccess.layer))
}
