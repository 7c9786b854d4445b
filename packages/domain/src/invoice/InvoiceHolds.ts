/**
 * Holds: a payment request's claim on the invoices it pays, taken once the request's execution is claimed (issue 38).
 * While one is live, no other request may pay the invoice and its author may not cancel it; it needs no release, as
 * it lapses by itself when its request or its payment ends without paying (`holdIsLive`).
 */
import { Effect } from "effect"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import type { InvoiceHold } from "./Invoice.ts"

/**
 * Whether `hold` still stands: its payment is recorded and neither failed nor canceled (registered as an intent, being
 * paid, or paid), or, not recorded yet, its request is being executed. A request released after the chain refused it,
 * or never executed, holds nothing.
 */
export const holdIsLive = Effect.fn("InvoiceHolds.holdIsLive")(function* (hold: InvoiceHold | undefined) {
  if (hold === undefined) return false
  const ledger = yield* PaymentLedger
  const payment = yield* ledger.find(hold.payment_nanoid)
  if (payment !== undefined) return payment.state !== "failed" && payment.state !== "canceled"
  const outcome = yield* ledger.outcome(hold.salt).pipe(Effect.option)
  return outcome._tag === "Some" && outcome.value.state === "executing"
})
