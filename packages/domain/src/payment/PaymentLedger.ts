/**
 * The payments ledger: the steps of executing signed payments and intents that must each be one atomic write, so a
 * state and the events that report it are never apart, and concurrent replicas never both act on one payment.
 */
import { Context, type Effect, Schema } from "effect"
import type { Uint256String } from "../Evm.ts"
import type { IssuedTypedData, TypedDataNotFound } from "../eip712/IssuedRequestStore.ts"
import { PaymentEntry } from "../eip712/TypedData.ts"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"
import type { PaymentId, TeamId, UserId } from "../Ids.ts"
import type { FencingToken, Lease } from "../Lease.ts"
import type { StaleState } from "../StaleState.ts"
import type { Payment } from "./Payment.ts"
import type { PaymentState } from "./PaymentMachine.ts"

/** No payment has this id. */
export class PaymentNotFound extends Schema.TaggedError<PaymentNotFound>()("PaymentNotFound", {
  nanoid: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "PAYMENT_NOT_FOUND"
  }
}

/** The changes a settlement may carry besides the state. */
export type PaymentPatch = Partial<Pick<Payment, "creation_transaction" | "process_transaction" | "updated_at">>

/** What PUT /v2/payments answers once a request executed; a replay answers the same. */
export const ExecutionResult = Schema.Struct({ transaction: Schema.String, payments: Schema.Array(PaymentEntry) })
export type ExecutionResult = typeof ExecutionResult.Type

/** What `recordExecution` writes in one step, for the holder of the claim `token`. */
export interface ExecutionRecord {
  readonly salt: Uint256String
  readonly token: FencingToken
  readonly result: ExecutionResult
  readonly payments: ReadonlyArray<Payment>
}

/** What `noteInFlight` writes: an executing request's transaction sent and not final yet. */
export interface InFlightNote {
  readonly salt: Uint256String
  readonly token: FencingToken
  /** What a PUT answers meanwhile (202): the transaction in flight and the signed entries. */
  readonly result: ExecutionResult
  /** The payments as they stand meanwhile (`processing`, with that transaction); none for intents. */
  readonly payments: ReadonlyArray<Payment>
}

/** Where the execution of an issued request stands. */
export type ExecutionOutcome =
  | { readonly state: "issued" }
  | {
      readonly state: "executing"
      readonly leaseUntil: number
      /** Its transaction was sent and is not final yet: what a PUT answers meanwhile (202, decision 0061). */
      readonly inFlight?: ExecutionResult | undefined
    }
  | { readonly state: "executed"; readonly result: ExecutionResult }

/** A due intent leased to one runner: the payment, and the lease its moves name. */
export interface LeasedIntent {
  readonly payment: Payment
  readonly lease: Lease
}

/** An executed request as recorded: enough to send it again to a chain that lost its transaction. */
export interface ExecutedRequest {
  readonly salt: Uint256String
  readonly issued: IssuedTypedData
  readonly signature: string
  readonly result: ExecutionResult
  /** When its execution was claimed (epoch ms). */
  readonly claimedAt: number
}

/** Which payments to list (the query of SPEC §4.3); times are unix seconds, both bounds inclusive. */
export interface LedgerQuery {
  readonly states: ReadonlyArray<PaymentState>
  /** Paid by this team. */
  readonly payer?: TeamId
  /** Not paid by this team (receivables come from elsewhere). */
  readonly notPayer?: TeamId
  /** Paid to one of these users. */
  readonly recipients?: ReadonlyArray<UserId>
  /** Signed by this user (`payer_nanoid`). */
  readonly signer?: UserId
  readonly createdFrom?: number
  readonly createdTo?: number
  /** Also intents (state `intent`) whose `pay_at_time` is after this time (unix seconds): registered, not yet due. */
  readonly intentsDueAfter?: number
  /** Only payments after this place in the order (older, or as old with a smaller nanoid): the next page's start. */
  readonly after?: { readonly created_at: string; readonly nanoid: string }
  /** At most this many. */
  readonly limit?: number
}

/**
 * The ledger. Implementations must:
 * - `noteInFlight`, `dropInFlight`, `recordExecution`: act only while `token` is the request's current claim token
 *   (else write nothing and answer `false`); `recordExecution` (the issued request's `record` move) writes the
 *   payments (replacing those noted in flight) and the request's result in one all-or-nothing step;
 * - `leaseDueIntent`: lease a due intent to one worker at a time across machines (a conditional single update), under
 *   a new fencing token;
 * - `transition`: move a payment only from `from` to a state the payment machine allows (another is a defect), and
 *   for an intent's runner only while its lease's `token` is current (`StaleState` otherwise), in one step;
 * - `list`: newest first (`created_at`, then nanoid, both descending);
 * - `executedSince`: oldest first.
 */
export class PaymentLedger extends Context.Service<
  PaymentLedger,
  {
    readonly outcome: (salt: Uint256String) => Effect.Effect<ExecutionOutcome, TypedDataNotFound>
    /**
     * Notes the transaction an executing request has in flight (sent, not final yet), for the holder of its claim:
     * `outcome` answers it while that holder holds the claim, and its payments are listed until the execution is
     * recorded, which replaces them, or dropped. Noted again for each new version of the transaction (a replacement
     * with raised fees).
     */
    readonly noteInFlight: (note: InFlightNote) => Effect.Effect<boolean>
    /**
     * Removes the payments noted in flight for `salt` while `token` holds its claim: their transaction will not be
     * mined, and the claim is about to be released.
     */
    readonly dropInFlight: (salt: Uint256String, token: FencingToken) => Effect.Effect<boolean>
    /** Records an executed request for the holder of `record.token`; `false` (nothing written) if it lost the claim. */
    readonly recordExecution: (record: ExecutionRecord) => Effect.Effect<boolean>
    /**
     * The oldest intent whose `pay_at_time` is at or before `now` (unix seconds) and that no live lease holds,
     * moved to `scheduled` and leased until `leaseUntil` (epoch ms) under a new token; `undefined` when there is none.
     */
    readonly leaseDueIntent: (options: {
      readonly now: number
      readonly nowMillis: number
      readonly leaseUntil: number
    }) => Effect.Effect<LeasedIntent | undefined>
    /** Moves a payment from `from` to `to` with `patch`; for a leased intent, only while `token` is its current one. */
    readonly transition: (
      id: PaymentId,
      from: PaymentState,
      to: PaymentState,
      patch: PaymentPatch,
      token?: FencingToken
    ) => Effect.Effect<Payment, PaymentNotFound | StaleState>
    readonly list: (query: LedgerQuery) => Effect.Effect<ReadonlyArray<Payment>>
    /** One payment by its nanoid; `undefined` when there is none. */
    readonly find: (id: PaymentId) => Effect.Effect<Payment | undefined>
    /** The requests executed (claimed) at or after `sinceMillis` (epoch ms), oldest first. */
    readonly executedSince: (sinceMillis: number) => Effect.Effect<ReadonlyArray<ExecutedRequest>>
  }
>()("@svc/domain/payment/PaymentLedger") {}
