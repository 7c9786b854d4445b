/**
 * The team use cases (SPEC §4.2, §2.2) as one service, each in a file of its own (`CreateTeam.ts`, `ListTeamUsers.ts`,
 * ...), for a caller the access check lets through (docs/authorization.md). Members are `Members`
 * (membership/Members.ts), settings `Settings` (Settings.ts).
 */
import { Context, type Effect, Layer } from "effect"
import type { SendError } from "../chain/ChainError.ts"
import type { EventOutbox } from "../event/EventOutbox.ts"
import type { IdGenerator, TeamId } from "../Ids.ts"
import type { InviteRepository } from "../invite/InviteRepository.ts"
import type { InviteSettings } from "../invite/InviteSettings.ts"
import type { MailOutbox } from "../mail/MailOutbox.ts"
import type { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import type { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { PaymentLedger } from "../payment/PaymentLedger.ts"
import type { DuplicateAccounts } from "../payout/DuplicateAccounts.ts"
import type { Randomness } from "../Randomness.ts"
import type { UnitOfWork } from "../UnitOfWork.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { Caller } from "../user/Caller.ts"
import type { Pagination, TeamUser } from "../user/TeamUser.ts"
import type { UserRepository } from "../user/UserRepository.ts"
import { createTeam } from "./CreateTeam.ts"
import { deleteTeam } from "./DeleteTeam.ts"
import { getTeam } from "./GetTeam.ts"
import { listMyTeams } from "./ListMyTeams.ts"
import { listTeamUsers, type TeamUsersRequest } from "./ListTeamUsers.ts"
import type { CreatedTeam, CreateTeamBody, TeamListItem, TeamView, UpdateTeamBody } from "./Team.ts"
import type { TeamBalances } from "./TeamBalances.ts"
import type { TeamNotEmpty, TeamNotFound } from "./TeamNotFound.ts"
import type { TeamRepository } from "./TeamRepository.ts"
import { updateTeam } from "./UpdateTeam.ts"

export { accountCreationWait } from "./CreateTeam.ts"
export type { TeamUsersRequest } from "./ListTeamUsers.ts"

/** Why a team action is refused. */
export type TeamError = TeamNotFound | InsufficientPermissions

/** What the team use cases run on (and `ChainGateway` when there is a chain). */
type TeamPorts =
  | TeamAccess
  | TeamRepository
  | MembershipRepository
  | UserRepository
  | TeamBalances
  | PaymentLedger
  | InviteRepository
  | MailOutbox
  | InviteSettings
  | IdGenerator
  | Randomness
  | EventOutbox
  | UnitOfWork
  | DuplicateAccounts

/** Teams, for a caller. */
export class Teams extends Context.Service<
  Teams,
  {
    /** The active teams the caller is a member of, with the caller's role. */
    readonly listMine: (caller: Caller) => Effect.Effect<ReadonlyArray<TeamListItem>>
    /**
     * A team in a company the caller administers (a `team_admin` of one of its teams). The caller becomes its
     * `team_admin` and, with a chain, the owner of its account, created first; another `admin_wallet` gets a pending
     * admin invite (decision 0041).
     */
    readonly create: (
      caller: Caller,
      body: CreateTeamBody
    ) => Effect.Effect<CreatedTeam, InsufficientPermissions | SendError>
    /** The team with its administrators and balance. */
    readonly get: (caller: Caller, team: TeamId) => Effect.Effect<TeamView, TeamError>
    readonly update: (caller: Caller, team: TeamId, changes: UpdateTeamBody) => Effect.Effect<TeamView, TeamError>
    /** Marks the team deleted; its id stays taken. */
    readonly delete: (
      caller: Caller,
      team: TeamId
    ) => Effect.Effect<{ readonly team_nanoid: TeamId; readonly deleted: true }, TeamError | TeamNotEmpty>
    readonly users: (
      caller: Caller,
      team: TeamId,
      request: TeamUsersRequest
    ) => Effect.Effect<{ readonly users: ReadonlyArray<TeamUser>; readonly pagination: Pagination }, TeamError>
  }
>()("@svc/domain/team/Teams") {
  /**
   * On the repositories, the payments ledger, `IdGenerator`, `Randomness` (event keys), `TeamBalances` and
   * `InviteSettings`; with a `ChainGateway` in context, new teams get their account and team users show their svc
   * account (empty without one).
   */
  static readonly layer = useCaseLayer<TeamPorts>()(Teams, (run) => ({
    listMine: (caller) => run(listMyTeams(caller)),
    create: (caller, body) => run(createTeam(caller, body)),
    get: (caller, team) => run(getTeam(caller, team)),
    update: (caller, team, changes) => run(updateTeam(caller, team, changes)),
    delete: (caller, team) => run(deleteTeam(caller, team)),
    users: (caller, team, request) => run(listTeamUsers(caller, team, request))
  })).pipe(Layer.provide(TeamAccess.layer))
}
