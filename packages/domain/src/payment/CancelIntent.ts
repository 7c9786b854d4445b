/**
 * Canceling a registered intent that has not started executing (docs/decisions/0057): its signer may, and so may
 * whoever may execute the team's payments. Answers the payment as canceled.
 */
import { Effect, Schema } from "effect"
import type { PaymentId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { cancelPayment } from "./IntentCancellation.ts"
import { IntentNotCancelable } from "./PaymentErrors.ts"
import { PaymentLedger, PaymentNotFound } from "./PaymentLedger.ts"

/** What cancelling an intent answers (`DELETE /v2/payments/intents/{payment_nanoid}`). */
export const CanceledIntent = Schema.Struct({ payment_nanoid: Schema.String, state: Schema.Literal("canceled") })
export type CanceledIntent = typeof CanceledIntent.Type

/** Cancels the intent, conditional on its still being an intent (the runner moves it out of that state first). */
export const cancelIntent = Effect.fn("Payments.cancelIntent")(function* (caller: Caller, id: PaymentId) {
  const payment = yield* PaymentLedger.use((ledger) => ledger.find(id))
  if (payment === undefined) return yield* new PaymentNotFound({ nanoid: id })
  // Its signer may take back what they registered; anyone else needs the right to execute the team's payments.
  if (payment.payer_nanoid !== caller.nanoid) {
    yield* TeamAccess.use((access) => access.authorize(caller, payment.team_nanoid, "payments.execute"))
  }
  const refused = new IntentNotCancelable({
    nanoid: id,
    state: payment.state,
    message: `Only an intent not yet executing can be canceled; this payment is ${payment.state}`
  })
  if (payment.state !== "intent") return yield* refused
  if (!(yield* cancelPayment(payment, "intent"))) return yield* refused
  return { payment_nanoid: id, state: "canceled" as const } satisfies CanceledIntent
})
