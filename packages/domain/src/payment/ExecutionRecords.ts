/**
 * What the holder of a claim writes for each kind of signed request (decisions 0017, 0061, 0080): the note of its
 * transaction in flight, and its settlement once final, each under the claim's fencing token. Payment batches and
 * instant payments list their payments `processing` while in flight and record them with their events once final;
 * manager grants record the transaction, then accept the invites they grant.
 */
import { Array as Arr, Clock, DateTime, Effect, Metric, Option } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { Settlement } from "../chain/Settlement.ts"
import type { Claimed, ClaimedTypedData, IssuedPayment, IssuedTypedData } from "../eip712/IssuedRequestStore.ts"
import type { PaymentEntry } from "../eip712/TypedData.ts"
import type { EventOutbox } from "../event/EventOutbox.ts"
import type { IdGenerator } from "../Ids.ts"
import { acceptGrantedInvites } from "../invite/AcceptGrantedInvites.ts"
import type { InviteRepository } from "../invite/InviteRepository.ts"
import type { InvoiceNotPayable } from "../invoice/InvoiceErrors.ts"
import type { InvoiceRepository } from "../invoice/InvoiceRepository.ts"
import { holdInvoices, payInvoices } from "../invoice/PayInvoices.ts"
import type { MembershipRepository } from "../membership/MembershipRepository.ts"
import type { Randomness } from "../Randomness.ts"
import type { PayScheduleRepository } from "../schedule/PayScheduleRepository.ts"
import { scheduleRecords } from "../schedule/ScheduleRecords.ts"
import { isoOf } from "../Timestamp.ts"
import type { Team } from "../team/Team.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { type UnitOfWork, withEvents } from "../UnitOfWork.ts"
import type { User } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type Payment, usdcDecimals } from "./Payment.ts"
import { chainFactsOf, executionEventsOf } from "./PaymentEvents.ts"
import { type ExecutionResult, PaymentLedger } from "./PaymentLedger.ts"
import { initialPaymentState, PaymentMachine, type PaymentState } from "./PaymentMachine.ts"
import { recordSurely } from "./RecordSurely.ts"

/** Payments executed on chain and recorded (`pay_now`: paid now, or registered as intents). */
export const paymentsExecuted = Metric.counter("svc_payments_executed_total", {
  description: "Payments executed on chain and recorded, by pay_now",
  incremental: true
})

/** From the claim of a signed request (its PUT) to its settlement recorded, final on chain. */
export const settlementSeconds = Metric.histogram("svc_settlement_seconds", {
  description: "Time from a PUT /v2/payments claiming its request to its transaction final and recorded",
  boundaries: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300]
})

/** The signed payment entries of an issued request, in request order (none for a grant). */
export const entriesOf = (issued: IssuedTypedData): ReadonlyArray<PaymentEntry> =>
  issued.kind === "batch"
    ? issued.bundle.typed_data.data.payments
    : issued.kind === "instant"
      ? [issued.bundle.typed_data.data]
      : []

/**
 * Whether `settlement` (what the chain shows for the salt) settled exactly what `issued` asked: the issued payments,
 * ids and amounts in order (a grant pays nothing). Another request that spent the salt does not.
 */
export const settles = (issued: IssuedTypedData, settlement: Settlement): boolean => {
  const entries = entriesOf(issued)
  return (
    settlement.payments.length === entries.length &&
    settlement.payments.every(
      (outcome, index) =>
        outcome.id.toLowerCase() === entries[index]?.id.toLowerCase() &&
        outcome.amount === BigInt(entries[index]?.amount ?? -1)
    )
  )
}

/**
 * The payments of a claimed request in `state`, created (and paid, when paid now) by `transaction`. They date from the
 * claim, so the rows listed while the transaction is in flight and those recorded once it is final agree.
 */
const paymentsOf = (
  team: Team,
  payer: User,
  issued: Claimed<IssuedPayment>,
  state: PaymentState,
  transaction: string,
  updatedAt: string
): ReadonlyArray<Payment> => {
  const request = issued.request
  return Arr.zip(request.payments, entriesOf(issued)).map(
    ([planned, entry]): Payment => ({
      nanoid: planned.nanoid,
      group_nanoid: request.group_nanoid,
      invoice_nanoid: planned.invoice_nanoid,
      ...(planned.pays_invoice === true ? { pays_invoice: true as const } : {}),
      team_nanoid: team.nanoid,
      payer_nanoid: payer.nanoid,
      ...(planned.recipient_nanoid === undefined ? {} : { recipient_nanoid: planned.recipient_nanoid }),
      ...(planned.recipient_email === undefined ? {} : { recipient_email: planned.recipient_email }),
      state,
      amount_cents: planned.amount_cents,
      currency_symbol: "USD",
      token: entry.token,
      token_amount: entry.amount,
      token_decimals: usdcDecimals,
      pay_type: entry.payType,
      pay_at_time: Number(entry.payAtTime),
      valid_minutes: Number(entry.validMinutes),
      onchain_id: entry.id,
      group_onchain_id: entry.groupID,
      data: entry.data,
      salt: issued.salt,
      invoice: planned.invoice,
      creation_transaction: transaction,
      ...(request.body.pay_now ? { process_transaction: transaction } : {}),
      created_at: isoOf(issued.claim.claimedAt),
      updated_at: updatedAt
    })
  )
}

/** What a holder writes for its request. */
export interface ExecutionRecords {
  /**
   * Takes what the request needs before each send, its first or recovery's sending again: a payment request's hold on
   * the invoices it pays (decision 0106). Refused, nothing is sent and the claim is released.
   */
  readonly beforeSend: Effect.Effect<void, InvoiceNotPayable>
  /** Notes `transaction` in flight for the holder: replays answer it (202), and payments paid now are listed. */
  readonly noteInFlight: (transaction: string) => Effect.Effect<boolean>
  /**
   * Records the settlement for the holder (payments, result and events in one unit; a grant's invites accepted);
   * answers the result, which the holder answers whether it recorded it or lost its claim meanwhile (the new holder
   * records the same settlement from the chain). A request `reopened` (its transaction lost by a restored chain)
   * announced its payments already: its record appends no second event.
   */
  readonly record: (settlement: Settlement) => Effect.Effect<ExecutionResult>
}

/** What the records of a request write through. */
type RecordServices =
  | PaymentLedger
  | ChainGateway
  | UnitOfWork
  | EventOutbox
  | UserRepository
  | IdGenerator
  | Randomness
  | InviteRepository
  | InvoiceRepository
  | MembershipRepository
  | PayScheduleRepository
  | TeamRepository

/** What a holder writes, before the services it writes through are given. */
interface Unprovided {
  readonly beforeSend: Effect.Effect<void, InvoiceNotPayable, RecordServices>
  readonly noteInFlight: (transaction: string) => Effect.Effect<boolean, never, RecordServices>
  readonly record: (settlement: Settlement) => Effect.Effect<ExecutionResult, never, RecordServices>
}

/** The payment records of a claimed payment request, for its team and the user whose wallet signed it. */
const paymentRecords = (issued: Claimed<IssuedPayment>, team: Team, payer: User): Unprovided => {
  const entries = entriesOf(issued)
  const payNow = issued.request.body.pay_now
  const { salt } = issued
  const { token } = issued.claim
  return {
    beforeSend: holdInvoices(issued),
    noteInFlight: (transaction) =>
      Effect.gen(function* () {
        const now = DateTime.formatIso(yield* DateTime.now)
        const listed = payNow ? paymentsOf(team, payer, issued, initialPaymentState(true), transaction, now) : []
        return yield* PaymentLedger.use((ledger) =>
          ledger.noteInFlight({ salt, token, result: { transaction, payments: entries }, payments: listed })
        )
      }),
    record: (settlement) =>
      Effect.gen(function* () {
        // Paid now: created `processing`, and the mined receipt confirms it. Otherwise registered as an intent.
        const state = payNow
          ? yield* PaymentMachine.transition(initialPaymentState(true), "confirm").pipe(Effect.orDie)
          : initialPaymentState(false)
        const now = DateTime.formatIso(yield* DateTime.now)
        const payments = paymentsOf(team, payer, issued, state, settlement.transactionHash, now)
        const chainId = (yield* ChainGateway).chainId
        const scope = { team_nanoid: team.nanoid, company_nanoid: team.company_nanoid }
        const events = yield* executionEventsOf(scope, payments, payNow, chainFactsOf(chainId, settlement))
        const result: ExecutionResult = { transaction: settlement.transactionHash, payments: entries }
        const announced = issued.reopened === true
        // The invoices the payments pay, in the same unit under the same token: both recorded, or neither (issue 38).
        const paidBy = { transaction: settlement.transactionHash, block_number: Number(settlement.blockNumber) }
        const recorded = yield* recordSurely(
          withEvents(
            PaymentLedger.use((ledger) => ledger.recordExecution({ salt, token, result, payments })).pipe(
              Effect.tap((done) => (done ? payInvoices(payments, paidBy) : Effect.void))
            ),
            (done) => (done && !announced ? events : [])
          )
        )
        if (recorded) {
          yield* Metric.update(Metric.withAttributes(paymentsExecuted, { pay_now: String(payNow) }), payments.length)
          yield* Metric.update(settlementSeconds, ((yield* Clock.currentTimeMillis) - issued.claim.claimedAt) / 1000)
        }
        return result
      })
  }
}

/** The records of a claimed grant: no payment; its invites accepted once recorded. */
const grantRecords = (issued: ClaimedTypedData & { readonly kind: "roles" }): Unprovided => ({
  beforeSend: Effect.void,
  noteInFlight: (transaction) =>
    PaymentLedger.use((ledger) =>
      ledger.noteInFlight({
        salt: issued.salt,
        token: issued.claim.token,
        result: { transaction, payments: [] },
        payments: []
      })
    ),
  record: (settlement) =>
    Effect.gen(function* () {
      const result: ExecutionResult = { transaction: settlement.transactionHash, payments: [] }
      yield* recordSurely(
        PaymentLedger.use((ledger) =>
          ledger.recordExecution({ salt: issued.salt, token: issued.claim.token, result, payments: [] })
        )
      )
      yield* acceptGrantedInvites(issued)
      return result
    })
})

/**
 * What the holder of `issued` writes. A payment request needs its team and the user of its signing wallet: without
 * them (deleted meanwhile) there is nothing to record it for, a defect.
 */
export const recordsOf = Effect.fn("ExecutionRecords.recordsOf")(function* (issued: ClaimedTypedData) {
  const context = yield* Effect.context<RecordServices>()
  const provided = (records: Unprovided): ExecutionRecords => ({
    beforeSend: Effect.provideContext(records.beforeSend, context),
    noteInFlight: (transaction) => Effect.provideContext(records.noteInFlight(transaction), context),
    record: (settlement) => Effect.provideContext(records.record(settlement), context)
  })
  if (issued.kind === "roles") return provided(grantRecords(issued))
  if (issued.kind === "schedule") return provided(scheduleRecords(issued))
  const team = yield* TeamRepository.use((teams) => teams.findById(issued.team))
  const payer = yield* UserRepository.use((users) => users.findByWallet(issued.bundle.typed_data.from))
  if (Option.isNone(team) || Option.isNone(payer)) {
    return yield* Effect.die(new Error(`request ${issued.salt}: its team or its signer's user is gone`))
  }
  return provided(paymentRecords(issued, team.value, payer.value))
})
