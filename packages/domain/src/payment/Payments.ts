/**
 * The payment use cases (SPEC §4.3, §4.5, §4.6, §4.7 and the balance of DESIGN §5) as one service, each in a file of
 * its own, for a caller the access check lets through: issue typed data, execute signed requests once, query the
 * ledger, cancel an intent, read a balance. docs/payments.md tells the flow.
 */
import { Context, type Effect, Layer } from "effect"
import type { RequestError } from "../chain/ChainError.ts"
import type { ChainGateway } from "../chain/ChainGateway.ts"
import type { IssuedRequestStore, IssuedRequestsLimit } from "../eip712/IssuedRequestStore.ts"
import type { SignedRequestError } from "../eip712/SignedRequest.ts"
import type { PaymentsTypedDataBundle, PaymentTypedDataBundle } from "../eip712/TypedData.ts"
import type { EventOutbox } from "../event/EventOutbox.ts"
import type { IdGenerator, PaymentId } from "../Ids.ts"
import type { InviteRepository } from "../invite/InviteRepository.ts"
import type { InvoiceNotPayable } from "../invoice/InvoiceErrors.ts"
import type { InvoiceRepository } from "../invoice/InvoiceRepository.ts"
import type { InsufficientPermissions, MemberBlocked } from "../membership/MembershipErrors.ts"
import type { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Randomness } from "../Randomness.ts"
import type { PayScheduleRepository } from "../schedule/PayScheduleRepository.ts"
import type { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import type { TeamNotFound } from "../team/TeamNotFound.ts"
import type { TeamRepository } from "../team/TeamRepository.ts"
import type { UnitOfWork } from "../UnitOfWork.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { Caller } from "../user/Caller.ts"
import type { UserNotFound } from "../user/UserNotFound.ts"
import type { UserRepository } from "../user/UserRepository.ts"
import type { BalanceQuery } from "./Balance.ts"
import { type CanceledIntent, cancelIntent } from "./CancelIntent.ts"
import { executeSignedPayments } from "./ExecuteSignedPayments.ts"
import type { Executions } from "./Executions.ts"
import { type AccountBalance, getBalance } from "./GetBalance.ts"
import { issueInstantPayment } from "./IssueInstantPayment.ts"
import { issuePayments } from "./IssuePayments.ts"
import type {
  BalanceNotFound,
  ExecutionBodyMismatch,
  ExecutionInProgress,
  IntentNotCancelable,
  InvalidPaymentsCursor,
  InvalidRecipient,
  TeamAccountMissing
} from "./PaymentErrors.ts"
import type { ExecutionAnswer } from "./PaymentExecution.ts"
import type { PaymentLedger, PaymentNotFound } from "./PaymentLedger.ts"
import type {
  CreatePaymentsRequest,
  ExecutePaymentsRequest,
  InstantPaymentRequest,
  PaymentsQuery
} from "./PaymentRequests.ts"
import { type PaymentsPage, queryPayments } from "./QueryPayments.ts"

export { CanceledIntent } from "./CancelIntent.ts"
export type { AccountBalance } from "./GetBalance.ts"
export type { PaymentsPage } from "./QueryPayments.ts"

/** Why a payment action is refused before anything is issued or sent: the team, or the caller's role. */
type AccessError = TeamNotFound | InsufficientPermissions

/** Why issuing typed data is refused. */
export type IssueError =
  | AccessError
  | TeamAccountMissing
  | InvalidRecipient
  | MemberBlocked
  | IssuedRequestsLimit
  | InvoiceNotPayable

/**
 * Why an execution is refused (nothing moved; or the chain shows the salt spent), is still running under another
 * holder with nothing sent yet (`ExecutionInProgress`), or could not start (`ChainUnreachable`: retry later).
 */
export type ExecuteError =
  | AccessError
  | SignedRequestError
  | MemberBlocked
  | ExecutionBodyMismatch
  | ExecutionInProgress
  | RequestError
  | InvoiceNotPayable

/** What the payment use cases run on (with `IssuedRequestPolicy` and `SettlementWait` as set at the root). */
type PaymentPorts =
  | TeamAccess
  | ChainGateway
  | IssuedRequestStore
  | PaymentLedger
  | MembershipRepository
  | UserRepository
  | TeamRepository
  | InvoiceRepository
  | IdGenerator
  | Randomness
  | SignatureVerifier
  | EventOutbox
  | UnitOfWork
  | Executions
  | InviteRepository
  | PayScheduleRepository

/** Payments of teams, for a caller. */
export class Payments extends Context.Service<
  Payments,
  {
    /** The typed data of a batch to members, for the caller's wallet to sign (`pay_now` or an intent). */
    readonly issueBatch: (
      caller: Caller,
      body: CreatePaymentsRequest
    ) => Effect.Effect<PaymentsTypedDataBundle, IssueError>
    /** The typed data of an instant payment to an e-mail, into the escrow. */
    readonly issueInstant: (
      caller: Caller,
      body: InstantPaymentRequest
    ) => Effect.Effect<PaymentTypedDataBundle, IssueError>
    /**
     * Executes signed payments at most once across replicas (a replay answers the first result): `Executed`, or
     * `InFlight` with the transaction still in flight after the wait (202).
     */
    readonly execute: (caller: Caller, body: ExecutePaymentsRequest) => Effect.Effect<ExecutionAnswer, ExecuteError>
    /**
     * The team's payments matching the SPEC §4.3 filters, newest first: a page of `limit` (default and at most
     * `maxPaymentsPage`) from `cursor`, and the cursor of the next page (`null` at the end).
     */
    readonly query: (
      caller: Caller,
      query: PaymentsQuery
    ) => Effect.Effect<PaymentsPage, AccessError | InvalidPaymentsCursor>
    /**
     * Cancels a registered intent that has not started executing (docs/decisions/0057): its signer may, and so may
     * whoever may execute the team's payments. Answers the payment as canceled.
     */
    readonly cancelIntent: (
      caller: Caller,
      payment: PaymentId
    ) => Effect.Effect<CanceledIntent, AccessError | PaymentNotFound | IntentNotCancelable>
    /** The svc account of a team (`balance.read`) or of the caller, and its balances in cents. */
    readonly balance: (
      caller: Caller,
      query: BalanceQuery
    ) => Effect.Effect<AccountBalance, AccessError | UserNotFound | BalanceNotFound>
  }
>()("@svc/domain/payment/Payments") {
  /**
   * On the chain, the payment storage, the repositories, ids, randomness and the signature check. The limits on issued
   * requests are read from the ports captured here, where the composition root set them.
   */
  static readonly layer = useCaseLayer<PaymentPorts>()(Payments, (run) => ({
    issueBatch: (caller, body) => run(issuePayments(caller, body)),
    issueInstant: (caller, body) => run(issueInstantPayment(caller, body)),
    execute: (caller, body) => run(executeSignedPayments(caller, body)),
    query: (caller, query) => run(queryPayments(caller, query)),
    cancelIntent: (caller, payment) => run(cancelIntent(caller, payment)),
    balance: (caller, query) => run(getBalance(caller, query))
  })).pipe(Layer.provide(TeamAccess.layer))
}
