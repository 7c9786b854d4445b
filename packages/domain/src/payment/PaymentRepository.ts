/**
 * The payments port: what a store of payments must offer the use cases.
 */
import { Context, type Effect, Schema } from "effect"
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

/** Which payments to list; times are unix seconds, both bounds inclusive. */
export interface PaymentFilter {
  readonly team: TeamId
  readonly states: ReadonlyArray<PaymentState>
  /** `payable`: paid by the team; `receivable`: paid to the team's members by others. */
  readonly direction: "payable" | "receivable"
  readonly recipient?: UserId
  readonly createdFrom?: number
  readonly createdTo?: number
}

/** The changes a transition may carry besides the state. */
export type PaymentPatch = Partial<Pick<Payment, "creation_transaction" | "process_transaction" | "updated_at">>

/**
 * Stored payments. Implementations must: insert a group all-or-nothing with unique ids; make `transition` a
 * single atomic conditional update (succeeds only if the stored state is still `from`, else `StaleState`), so
 * concurrent replicas cannot both move a payment; list newest first.
 */
export class PaymentRepository extends Context.Service<
  PaymentRepository,
  {
    readonly insertGroup: (payments: readonly [Payment, ...Array<Payment>]) => Effect.Effect<void>
    readonly findById: (id: PaymentId) => Effect.Effect<Payment, PaymentNotFound>
    readonly list: (filter: PaymentFilter) => Effect.Effect<ReadonlyArray<Payment>>
    /** Payments in `intent` whose `pay_at_time` is at or before `now` (unix seconds), oldest first. */
    readonly listDue: (now: number, limit: number) => Effect.Effect<ReadonlyArray<Payment>>
    readonly transition: (
      id: PaymentId,
      from: PaymentState,
      to: PaymentState,
      patch?: PaymentPatch
    ) => Effect.Effect<Payment, PaymentNotFound | StaleState>
  }
>()("@svc/domain/payment/PaymentRepository") {}
