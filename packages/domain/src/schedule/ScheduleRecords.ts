/**
 * What the holder of a signed pay schedule's claim writes (decisions 0111, 0112): the note of its registering
 * transaction in flight, and, once final, the execution, the schedule `active` and `payment.subscription.created` in
 * one unit of work, each under the claim's fencing token. `ExecutionRecords.recordsOf` hands a schedule's claim here,
 * so the first send, a replay's take-over and recovery all record a schedule the same way.
 */
import { DateTime, Effect } from "effect"
import type { Receipt, Settlement } from "../chain/Settlement.ts"
import type { Claimed, IssuedSchedule } from "../eip712/IssuedRequestStore.ts"
import { holdScheduleInvoices } from "../invoice/PayInvoices.ts"
import { type ExecutionResult, PaymentLedger } from "../payment/PaymentLedger.ts"
import { recordSurely } from "../payment/RecordSurely.ts"
import { withEvents } from "../UnitOfWork.ts"
import { instalmentDueAt } from "./Instalments.ts"
import { initialScheduleState, type PaySchedule, scheduleOnchainIdOf } from "./PaySchedule.ts"
import { PayScheduleRepository } from "./PayScheduleRepository.ts"
import { scheduleEventOf } from "./ScheduleEvents.ts"

/** The schedule an issued request registers, as recorded once its transaction is final. */
export const scheduleOf = (issued: IssuedSchedule, registration: Receipt, now: string): PaySchedule => {
  const request = issued.request
  return {
    nanoid: request.schedule,
    team_nanoid: issued.team,
    signer_nanoid: issued.issuedTo,
    signer: issued.signer,
    state: initialScheduleState,
    interval: request.interval,
    first_pay_at: request.first_pay_at,
    count: request.count,
    valid_minutes: request.valid_minutes,
    token: request.token,
    token_decimals: request.token_decimals,
    payees: request.payees,
    onchain_id: scheduleOnchainIdOf(request.schedule),
    salt: issued.salt,
    registration_transaction: registration.transactionHash,
    registration_block: Number(registration.blockNumber),
    paid_count: 0,
    missed_count: 0,
    next_instalment: 0,
    next_pay_at: instalmentDueAt({ firstPayAt: request.first_pay_at, interval: request.interval }, 0),
    created_at: now,
    updated_at: now
  }
}

/** The records of a claimed pay schedule: no payment until an instalment is paid. */
export const scheduleRecords = (issued: Claimed<IssuedSchedule>) => ({
  // The invoices it pays in instalments are held for it before it is sent, as a payment's are (decision 0117).
  beforeSend: holdScheduleInvoices(issued),
  noteInFlight: (transaction: string) =>
    PaymentLedger.use((ledger) =>
      ledger.noteInFlight({
        salt: issued.salt,
        token: issued.claim.token,
        result: { transaction, payments: [] },
        payments: []
      })
    ),
  record: (settlement: Settlement) =>
    Effect.gen(function* () {
      const schedule = scheduleOf(issued, settlement, DateTime.formatIso(yield* DateTime.now))
      const event = yield* scheduleEventOf("payment.subscription.created", schedule)
      const result: ExecutionResult = { transaction: settlement.transactionHash, payments: [] }
      yield* recordSurely(
        withEvents(
          Effect.gen(function* () {
            const recorded = yield* PaymentLedger.use((ledger) =>
              ledger.recordExecution({ salt: issued.salt, token: issued.claim.token, result, payments: [] })
            )
            return recorded && (yield* PayScheduleRepository.use((repository) => repository.insert(schedule)))
          }),
          (inserted) => (inserted && issued.reopened !== true ? [event] : [])
        )
      )
      return result
    })
})
