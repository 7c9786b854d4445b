/**
 * The payments ledger: the steps of executing signed payments and intents that must each be one atomic write, so a
 * state and the events that report it are never apart, and concurrent replicas never both act on one payment.
 */
import { Context, type Effect, type Option, Schema } from "effect"
import type { Uint256String } from "../Evm.ts"
import type { IssuedTypedData, TypedDataNotFound } from "../eip712/IssuedRequestStore.ts"
import { PaymentEntry } from "../eip712/TypedData.ts"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"
import type { PaymentId, TeamId, UserId } from "../Ids.ts"
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

/** How long a claim of a salt holds before another replica may take over an execution left unfinished (ms). */
export const executionLeaseMillis = 120_000

/** What PUT /v2/payments answers once a request executed; a replay answers the same. */
export const ExecutionResult = Schema.Struct({ transaction: Schema.String, payments: Schema.Array(PaymentEntry) })
export type ExecutionResult = typeof ExecutionResult.Type

/** What `recordExecution` writes in one step. */
export interface ExecutionRecord {
  readonly salt: Uint256String
  readonly claimToken: string
  /** The signature the request executed with, kept so a chain that lost the transaction can be sent it again. */
  readonly signature: string
  readonly result: ExecutionResult
  readonly payments: ReadonlyArray<Payment>
}

/** What `noteInFlight` writes: an executing request's transaction sent and not final yet. */
export interface InFlightNote {
  readonly salt: Uint256String
  readonly claimToken: string
  /** The signature it was sent with, kept so that the request can be finished should its holder die. */
  readonly signature: string
  /** What a PUT answers meanwhile (202): the transaction in flight and the signed entries. */
  readonly result: ExecutionResult
  /** The payments as they stand meanwhile (`processing`, with that transaction); none for intents. */
  readonly payments: ReadonlyArray<Payment>
}

/** A request left `executing` by a holder whose lease expired (it died, or was cut off), with what it noted. */
export interface AbandonedRequest {
  readonly salt: Uint256String
  readonly issued: IssuedTypedData
  /** Its transaction in flight and signature, when its holder noted them. */
  readonly note?: { readonly result: ExecutionResult; readonly signature: string } | undefined
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
 * - `recordExecution`: write the payments (replacing those noted in flight) and the request's result in one
 *   all-or-nothing step, only while `claimToken` holds the request's claim (else record nothing and answer `false`);
 * - `takeOver`: succeed for exactly one caller, and only while the request is `executing` with an expired lease,
 *   giving the claim a new random token (so the previous holder can no longer release it or record);
 * - `leaseDueIntent`: lease a due intent to one worker at a time across machines (a conditional single update);
 * - `transition`: move a payment only from `from` (`StaleState` otherwise), in one step;
 * - `list`: newest first (`created_at`, then nanoid, both descending);
 * - `executedSince`: oldest first;
 * - `amendTransaction`: change the request's result and its payments in one all-or-nothing step.
 */
export class PaymentLedger extends Context.Service<
  PaymentLedger,
  {
    readonly outcome: (salt: Uint256String) => Effect.Effect<ExecutionOutcome, TypedDataNotFound>
    /**
     * Takes over an execution left by a process that died (lease expired before `now`, epoch ms): the new claim
     * token, or none when the request is not `executing` with an expired lease (or another caller took it first).
     */
    readonly takeOver: (salt: Uint256String, now: number, leaseUntil: number) => Effect.Effect<Option.Option<string>>
    /**
     * Notes the transaction an executing request has in flight (sent, not final yet), for the holder of its claim:
     * `outcome` answers its result while that holder holds the claim, `abandoned` its result and signature once the
     * lease expired, and its payments are listed until the execution is recorded, which replaces them, or dropped.
     * Noted again for each new version of the transaction (a replacement with raised fees). `false` (nothing written)
     * if the holder lost the claim.
     */
    readonly noteInFlight: (note: InFlightNote) => Effect.Effect<boolean>
    /**
     * Up to `limit` requests `executing` under a lease that expired before `now` (epoch ms), oldest claim first, with
     * what their holder noted (only the holder of the claim's note).
     */
    readonly abandoned: (now: number, limit: number) => Effect.Effect<ReadonlyArray<AbandonedRequest>>
    /**
     * Removes the payments noted in flight for `salt` while `claimToken` holds its claim: their transaction will not
     * be mined, and the claim is about to be released.
     */
    readonly dropInFlight: (salt: Uint256String, claimToken: string) => Effect.Effect<void>
    /** Records an executed request for the holder of `claimToken`; `false` (nothing written) if it lost the claim. */
    readonly recordExecution: (record: ExecutionRecord) => Effect.Effect<boolean>
    /**
     * Records payments no signed request of their own executed (a pay schedule's instalments): each kept once by its
     * nanoid, so a second record of one changes nothing. Answers how many were new.
     */
    readonly recordPayments: (payments: ReadonlyArray<Payment>) => Effect.Effect<number>
    /**
     * The oldest intent whose `pay_at_time` is at or before `now` (unix seconds) and that no live lease holds,
     * moved to `scheduled` and leased to `holder` until `leaseUntil` (epoch ms); `undefined` when there is none.
     */
    readonly leaseDueIntent: (options: {
      readonly now: number
      readonly nowMillis: number
      readonly holder: string
      readonly leaseUntil: number
    }) => Effect.Effect<Payment | undefined>
    readonly transition: (
      id: PaymentId,
      from: PaymentState,
      to: PaymentState,
      patch: PaymentPatch
    ) => Effect.Effect<Payment, PaymentNotFound | StaleState>
    readonly list: (query: LedgerQuery) => Effect.Effect<ReadonlyArray<Payment>>
    /** One payment by its nanoid; `undefined` when there is none. */
    readonly find: (id: PaymentId) => Effect.Effect<Payment | undefined>
    /** The requests executed (claimed) at or after `sinceMillis` (epoch ms), oldest first. */
    readonly executedSince: (sinceMillis: number) => Effect.Effect<ReadonlyArray<ExecutedRequest>>
    /**
     * Replaces the transaction hash `from` by `to` in the recorded result of `salt` and in the `creation_transaction`
     * and `process_transaction` of that salt's payments (a request sent again after the chain lost it). Fields holding
     * another hash are left as they are; an unknown salt changes nothing.
     */
    readonly amendTransaction: (salt: Uint256String, from: string, to: string) => Effect.Effect<void>
  }
>()("@svc/domain/payment/PaymentLedger") {}
