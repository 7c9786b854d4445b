/**
 * Cancelling intents (issue 18, item 7; docs/decisions/0057): a registered intent that has not started executing
 * moves to `canceled` with a `payment.canceled` event, in one conditional step (`intent` -> `canceled`), so it can
 * never race the intent runner, which takes an intent only by moving it out of `intent` first. An intent the runner
 * already holds is checked there instead: the runner cancels, rather than executes, one whose signer may no longer
 * pay for the team.
 */
import { DateTime, Effect } from "effect"
import type { TeamId, UserId } from "../Ids.ts"
import type { FencingToken } from "../Lease.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Payment } from "./Payment.ts"
import { paymentEventOf } from "./PaymentEvents.ts"
import { PaymentLedger } from "./PaymentLedger.ts"

/**
 * Cancels `payment` from `from` (`intent`, or `scheduled` by the runner that holds it under `token`); false when it
 * moved meanwhile.
 */
export const cancelPayment = Effect.fn("IntentCancellation.cancelPayment")(function* (
  payment: Payment,
  from: "intent" | "scheduled",
  token?: FencingToken
) {
  const team = yield* TeamRepository.use((teams) => teams.findById(payment.team_nanoid))
  const now = DateTime.formatIso(yield* DateTime.now)
  const scope = {
    team_nanoid: payment.team_nanoid,
    ...(team._tag === "Some" ? { company_nanoid: team.value.company_nanoid } : {})
  }
  const canceled: Payment = { ...payment, state: "canceled", updated_at: now }
  const event = yield* paymentEventOf(scope, "payment.canceled", canceled)
  return yield* withEvents(
    PaymentLedger.use((ledger) => ledger.transition(payment.nanoid, from, "canceled", { updated_at: now }, token)),
    () => [event]
  ).pipe(
    Effect.as(true),
    Effect.catchTag("StaleState", () => Effect.succeed(false)),
    Effect.orDie
  )
})

/** Cancels every intent `signer` registered for `team` that has not started executing; answers how many. */
export const cancelIntentsSignedBy = Effect.fn("IntentCancellation.cancelIntentsSignedBy")(function* (
  team: TeamId,
  signer: UserId
) {
  const pending = yield* PaymentLedger.use((ledger) => ledger.list({ states: ["intent"], payer: team, signer }))
  let canceled = 0
  for (const payment of pending) if (yield* cancelPayment(payment, "intent")) canceled++
  return canceled
})

/**
 * Cancels every intent of `team` that pays `recipient` and has not started executing (a blocked member, decision
 * 0107); answers how many.
 */
export const cancelIntentsTo = Effect.fn("IntentCancellation.cancelIntentsTo")(function* (
  team: TeamId,
  recipient: UserId
) {
  const pending = yield* PaymentLedger.use((ledger) =>
    ledger.list({ states: ["intent"], payer: team, recipients: [recipient] })
  )
  let canceled = 0
  for (const payment of pending) if (yield* cancelPayment(payment, "intent")) canceled++
  return canceled
})
