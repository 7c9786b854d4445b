/**
 * The pay schedule use cases (issue 37) as one service, each in a file of its own, for a caller the access check lets
 * through: issue a schedule's typed data, execute it once signed, list, read and cancel schedules, and read the team's
 * cash requirement. docs/payroll.md tells the flow.
 */
import { Context, type Effect, Layer } from "effect"
import type { ChainUnreachable, RequestError, SendError } from "../chain/ChainError.ts"
import type { ChainGateway } from "../chain/ChainGateway.ts"
import type { IssuedRequestStore, IssuedRequestsLimit, TypedDataNotFound } from "../eip712/IssuedRequestStore.ts"
import type { SignedRequestError } from "../eip712/SignedRequest.ts"
import type { ScheduleTypedDataBundle } from "../eip712/TypedData.ts"
import type { EventOutbox } from "../event/EventOutbox.ts"
import type { IdGenerator, PayScheduleId, TeamId } from "../Ids.ts"
import type { InviteRepository } from "../invite/InviteRepository.ts"
import type { InvoiceNotPayable } from "../invoice/InvoiceErrors.ts"
import type { InvoiceRepository } from "../invoice/InvoiceRepository.ts"
import type { InsufficientPermissions, MemberBlocked } from "../membership/MembershipErrors.ts"
import type { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Executions } from "../payment/Executions.ts"
import type {
  ExecutionBodyMismatch,
  ExecutionInProgress,
  InvalidRecipient,
  TeamAccountMissing
} from "../payment/PaymentErrors.ts"
import type { PaymentLedger } from "../payment/PaymentLedger.ts"
import type { Randomness } from "../Randomness.ts"
import type { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import type { SettingsRepository } from "../team/SettingsRepository.ts"
import type { TeamNotFound } from "../team/TeamNotFound.ts"
import type { TeamRepository } from "../team/TeamRepository.ts"
import type { UnitOfWork } from "../UnitOfWork.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { Caller } from "../user/Caller.ts"
import type { UserRepository } from "../user/UserRepository.ts"
import { cancelPaySchedule } from "./CancelSchedule.ts"
import { type CashRequirement, getCashRequirement } from "./CashRequirements.ts"
import { executePaySchedule, type ScheduleExecution } from "./ExecuteSchedule.ts"
import { issueSchedule } from "./IssueSchedule.ts"
import type { FirstPayInPast, PayScheduleNotFound, ScheduleNotCancelable } from "./PayScheduleErrors.ts"
import type { PayScheduleRepository } from "./PayScheduleRepository.ts"
import { getPaySchedule, listPaySchedules } from "./ReadSchedules.ts"
import type { CreatePayScheduleRequest, ExecutePayScheduleRequest, PayScheduleItem } from "./ScheduleRequests.ts"

/** Why an action is refused before anything is issued or sent: the team, or the caller's role. */
type AccessError = TeamNotFound | InsufficientPermissions

/** What the pay schedule use cases run on (with `IssuedRequestPolicy` and `SettlementWait` as set at the root). */
type PaySchedulePorts =
  | TeamAccess
  | ChainGateway
  | IssuedRequestStore
  | PaymentLedger
  | PayScheduleRepository
  | MembershipRepository
  | UserRepository
  | TeamRepository
  | SettingsRepository
  | IdGenerator
  | Randomness
  | SignatureVerifier
  | EventOutbox
  | UnitOfWork
  | Executions
  | InviteRepository
  | InvoiceRepository

/** Pay schedules of teams, for a caller. */
export class PaySchedules extends Context.Service<
  PaySchedules,
  {
    /** The schedule's typed data, for the caller's wallet to sign once, and its nanoid. */
    readonly issue: (
      caller: Caller,
      body: CreatePayScheduleRequest
    ) => Effect.Effect<
      { readonly bundle: ScheduleTypedDataBundle; readonly schedule: PayScheduleId },
      | AccessError
      | TeamAccountMissing
      | InvalidRecipient
      | MemberBlocked
      | InvoiceNotPayable
      | IssuedRequestsLimit
      | FirstPayInPast
      | ChainUnreachable
    >
    /** Registers the signed schedule on chain once; a replay answers the first result, 202 while in flight. */
    readonly execute: (
      caller: Caller,
      body: ExecutePayScheduleRequest
    ) => Effect.Effect<
      ScheduleExecution,
      | AccessError
      | TypedDataNotFound
      | SignedRequestError
      | ExecutionBodyMismatch
      | ExecutionInProgress
      | RequestError
      | InvoiceNotPayable
    >
    /** The team's schedules, newest first. */
    readonly list: (caller: Caller, team: TeamId) => Effect.Effect<ReadonlyArray<PayScheduleItem>, AccessError>
    /** One schedule. */
    readonly get: (caller: Caller, schedule: PayScheduleId) => Effect.Effect<PayScheduleItem, PayScheduleNotFound>
    /** Cancels an active schedule for good, on chain and in the records. */
    readonly cancel: (
      caller: Caller,
      schedule: PayScheduleId
    ) => Effect.Effect<PayScheduleItem, AccessError | PayScheduleNotFound | ScheduleNotCancelable | SendError>
    /** The team's obligations within its horizon against its balance. */
    readonly cashRequirement: (
      caller: Caller,
      team: TeamId
    ) => Effect.Effect<CashRequirement, AccessError | ChainUnreachable>
  }
>()("@svc/domain/schedule/PaySchedules") {
  /** On the chain, the storage ports, ids, randomness and the signature check. */
  static readonly layer = useCaseLayer<PaySchedulePorts>()(PaySchedules, (run) => ({
    issue: (caller, body) => run(issueSchedule(caller, body)),
    execute: (caller, body) => run(executePaySchedule(caller, body)),
    list: (caller, team) => run(listPaySchedules(caller, team)),
    get: (caller, schedule) => run(getPaySchedule(caller, schedule)),
    cancel: (caller, schedule) => run(cancelPaySchedule(caller, schedule)),
    cashRequirement: (caller, team) => run(getCashRequirement(caller, team))
  })).pipe(Layer.provide(TeamAccess.layer))
}
