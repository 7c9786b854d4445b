/**
 * The port for team and member settings.
 */
import { Context, type Effect, type Option } from "effect"
import type { TeamId, UserId } from "../Ids.ts"
import type { MemberSettings, TeamSettings } from "./TeamSettings.ts"

/**
 * Settings by team, and by team and member. `None` means never set (callers apply the defaults). `put*` replaces the
 * whole record atomically, creating it when absent. Storage failures are defects.
 */
export class SettingsRepository extends Context.Service<
  SettingsRepository,
  {
    readonly getTeam: (team: TeamId) => Effect.Effect<Option.Option<TeamSettings>>
    readonly putTeam: (team: TeamId, settings: TeamSettings) => Effect.Effect<void>
    readonly getMember: (team: TeamId, user: UserId) => Effect.Effect<Option.Option<MemberSettings>>
    readonly putMember: (team: TeamId, user: UserId, settings: MemberSettings) => Effect.Effect<void>
  }
>()("@svc/domain/team/SettingsRepository") {}
