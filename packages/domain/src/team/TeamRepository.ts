/**
 * The port for stored teams.
 */
import { Context, type Effect, type Option } from "effect"
import type { CompanyId, TeamId } from "../Ids.ts"
import type { Team } from "./Team.ts"

/** The fields of a team that `update` may change. */
export type TeamChanges = Partial<
  Pick<Team, "name" | "description" | "avatar" | "svc_account" | "status" | "updated_at">
>

/**
 * Teams by id. `findById` returns deleted teams too (callers decide); `findByIds` keeps the order of nothing in
 * particular. Storage failures are defects.
 */
export class TeamRepository extends Context.Service<
  TeamRepository,
  {
    readonly insert: (team: Team) => Effect.Effect<void>
    readonly findById: (id: TeamId) => Effect.Effect<Option.Option<Team>>
    readonly findByIds: (ids: ReadonlyArray<TeamId>) => Effect.Effect<ReadonlyArray<Team>>
    readonly listByCompany: (company: CompanyId) => Effect.Effect<ReadonlyArray<Team>>
    /** The teams whose `svc_account` is one of `accounts` (any letter case). */
    readonly findByAccounts: (accounts: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<Team>>
    /** Applies `changes` atomically; `None` when no team has `id`. */
    readonly update: (id: TeamId, changes: TeamChanges) => Effect.Effect<Option.Option<Team>>
  }
>()("@svc/domain/team/TeamRepository") {}
