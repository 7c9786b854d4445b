/**
 * Holds: a payment request's or a pay schedule's claim on the invoices it pays, taken once the request's execution is
 * claimed (issue 38, decision 0117). While one is live, no other request may pay the invoice and its author may not
 * cancel it; it needs no release, as it lapses by itself when its request, its payment or its schedule ends
 * (`holdIsLive`).
 */
import { Effect, Option } from "effect"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import { PayScheduleRepository } from "../schedule/PayScheduleRepository.ts"
import type { InvoiceHold } from "./Invoice.ts"

/** Whether the schedule of `hold` is `active`: `undefined` while it is not recorded yet. */
const scheduleActive = (hold: InvoiceHold) =>
  "schedule_nanoid" in hold
    ? PayScheduleRepository.use((schedules) => schedules.find(hold.schedule_nanoid)).pipe(
        Effect.map(Option.match({ onNone: () => undefined, onSome: (schedule) => schedule.state === "active" }))
      )
    : Effect.succeed(undefined)

/**
 * Whether `hold` still stands: its payment is recorded and neither failed nor canceled (registered as an intent, being
 * paid, or paid), or its schedule is recorded and `active`; or, neither recorded yet, its request is being executed.
 * A request released after the chain refused it, or never executed, holds nothing; nor does a schedule completed or
 * canceled.
 */
export const holdIsLive = Effect.fn("InvoiceHolds.holdIsLive")(function* (hold: InvoiceHold | undefined) {
  if (hold === undefined) return false
  const ledger = yield* PaymentLedger
  if ("payment_nanoid" in hold) {
    const payment = yield* ledger.find(hold.payment_nanoid)
    if (payment !== undefined) return payment.state !== "failed" && payment.state !== "canceled"
  }
  const active = yield* scheduleActive(hold)
  if (active !== undefined) return active
  const outcome = yield* ledger.outcome(hold.salt).pipe(Effect.option)
  return outcome._tag === "Some" && outcome.value.state === "executing"
})
