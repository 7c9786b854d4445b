/**
 * Manager invites (SPEC §4.9, DESIGN §5b) as one service: a team admin asks for role grants (`team_admin`,
 * `team_finance_admin`, `team_viewer`) to wallets (`CreateManagerInvites.ts`), signs the typed data, and the execution
 * grants them on chain through the forwarder, once per salt, with the same claim, wait and replay as payments
 * (`ExecuteManagerInvites.ts`). Each wallet then becomes a member with its role (invite `accepted`).
 */
import { Context, type Effect } from "effect"
import type { RequestError } from "../chain/ChainError.ts"
import type { ChainGateway } from "../chain/ChainGateway.ts"
import type { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import type { SignedRequestError } from "../eip712/SignedRequest.ts"
import type { RolesTypedDataBundle } from "../eip712/TypedData.ts"
import type { EventOutbox } from "../event/EventOutbox.ts"
import type { IdGenerator, InviteId } from "../Ids.ts"
import type { InvoiceRepository } from "../invoice/InvoiceRepository.ts"
import type { MailOutbox } from "../mail/MailOutbox.ts"
import type { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import type { MembershipRepository } from "../membership/MembershipRepository.ts"
import type { TeamAccess } from "../membership/TeamAccess.ts"
import type { Executions } from "../payment/Executions.ts"
import type { ExecutionBodyMismatch, ExecutionInProgress, TeamAccountMissing } from "../payment/PaymentErrors.ts"
import type { PaymentLedger } from "../payment/PaymentLedger.ts"
import type { Randomness } from "../Randomness.ts"
import type { PayScheduleRepository } from "../schedule/PayScheduleRepository.ts"
import type { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import type { TeamNotFound } from "../team/TeamNotFound.ts"
import type { TeamRepository } from "../team/TeamRepository.ts"
import type { UnitOfWork } from "../UnitOfWork.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { Caller } from "../user/Caller.ts"
import type { UserRepository } from "../user/UserRepository.ts"
import { createManagerInvites } from "./CreateManagerInvites.ts"
import { executeManagerInvites } from "./ExecuteManagerInvites.ts"
import type { AlreadyTeamMember, InviteClosed } from "./InviteErrors.ts"
import type { InviteRepository } from "./InviteRepository.ts"
import type { CreateManagerInvitesRequest, ExecuteManagerInvitesRequest } from "./InviteRequests.ts"
import type { InviteSettings } from "./InviteSettings.ts"

/** What POST /v2/invites/manager answers: the bundle to sign and the invites it covers. */
export type ManagerInviteBundle = RolesTypedDataBundle & { readonly invites: ReadonlyArray<InviteId> }

/** The invites a grant covers and its transaction. */
export interface ManagerInvitesResult {
  readonly invites: ReadonlyArray<InviteId>
  readonly transaction: string
}

/**
 * What PUT /v2/invites/manager answers, the first time and on every replay: `Executed` (200, the invites accepted),
 * or `InFlight` while its transaction is sent and not final yet (202, decision 0061).
 */
export type ManagerInvitesAnswer =
  | { readonly _tag: "Executed"; readonly result: ManagerInvitesResult }
  | { readonly _tag: "InFlight"; readonly result: ManagerInvitesResult }

/** Why an execution is refused. */
export type ManagerExecutionError =
  | TeamNotFound
  | InsufficientPermissions
  | ExecutionBodyMismatch
  | ExecutionInProgress
  | InviteClosed
  | SignedRequestError
  | RequestError

/** What the manager invite use cases run on. */
type ManagerInvitePorts =
  | TeamAccess
  | ChainGateway
  | InviteRepository
  | InvoiceRepository
  | MailOutbox
  | IssuedRequestStore
  | PaymentLedger
  | UserRepository
  | MembershipRepository
  | InviteSettings
  | IdGenerator
  | Randomness
  | SignatureVerifier
  | EventOutbox
  | UnitOfWork
  | Executions
  | PayScheduleRepository
  | TeamRepository

/** Manager invites, for a caller. */
export class ManagerInvites extends Context.Service<
  ManagerInvites,
  {
    /** Pending manager invites and the role grants to sign, by the caller's wallet, on the team's account. */
    readonly create: (
      caller: Caller,
      body: CreateManagerInvitesRequest
    ) => Effect.Effect<
      ManagerInviteBundle,
      TeamNotFound | InsufficientPermissions | TeamAccountMissing | AlreadyTeamMember
    >
    /** Grants the signed roles on chain once per salt, and makes each wallet a member with its role. */
    readonly execute: (
      caller: Caller,
      body: ExecuteManagerInvitesRequest
    ) => Effect.Effect<ManagerInvitesAnswer, ManagerExecutionError>
  }
>()("@svc/domain/invite/ManagerInvites") {
  /** On the chain, the stores, `TeamAccess`, `IdGenerator`, `Randomness`, `SignatureVerifier` and `InviteSettings`. */
  static readonly layer = useCaseLayer<ManagerInvitePorts>()(ManagerInvites, (run) => ({
    create: (caller, body) => run(createManagerInvites(caller, body)),
    execute: (caller, body) => run(executeManagerInvites(caller, body))
  }))
}
