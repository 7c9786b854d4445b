/**
 * The life of a payment (SPEC §3, DESIGN §5): created as an intent or sent at once, then complete, failed or
 * canceled. See the package README for the diagram.
 */
import { makeStateMachine } from "../StateMachine.ts"

/**
 * The payment machine.
 *
 * - `intent`: registered on chain for later (`pay_now` false), before its `pay_at_time`.
 * - `scheduled`: its `pay_at_time` has come; the intent runner will execute it within `valid_minutes`.
 * - `processing`: a transaction that pays it is submitted (at once for `pay_now` true).
 * - `complete`: the transaction succeeded; the recipient holds the funds. Terminal.
 * - `failed`: the transaction reverted or the validity window passed unexecuted. Terminal.
 * - `canceled`: the payer canceled it before execution. Terminal.
 */
export const PaymentMachine = makeStateMachine({
  name: "payment",
  states: ["intent", "scheduled", "processing", "complete", "failed", "canceled"],
  triggers: ["due", "defer", "submit", "confirm", "revert", "expire", "cancel"],
  transitions: {
    intent: { due: "scheduled", cancel: "canceled", expire: "failed" },
    scheduled: { defer: "intent", submit: "processing", cancel: "canceled", expire: "failed" },
    processing: { confirm: "complete", revert: "failed" },
    complete: {},
    failed: {},
    canceled: {}
  }
})

/** A payment's state. */
export type PaymentState = typeof PaymentMachine.State.Type
/** What moves a payment: `due` (Clock reached pay_at_time), `defer` (the chain's clock is not there yet),
 * `submit` (transaction sent), `confirm` (mined and succeeded), `revert` (mined and reverted, or dropped), `expire`
 * (window passed), `cancel` (payer's request). */
export type PaymentTrigger = typeof PaymentMachine.Trigger.Type

/** The state a payment starts in: `processing` when paid now, `intent` when registered for later. */
export const initialPaymentState = (payNow: boolean): PaymentState => (payNow ? "processing" : "intent")

/** The event each trigger publishes (SPEC §6), when it publishes one. */
export const paymentTriggerEvents = {
  confirm: "payment.sent",
  revert: "payment.failed",
  expire: "payment.failed",
  cancel: "payment.canceled"
} as const satisfies Partial<Record<PaymentTrigger, string>>

/** The payments query's `state` filter (SPEC §3) -> the states it selects. */
export const paymentStateFilter = {
  all: PaymentMachine.states,
  intent: ["intent"],
  scheduled: ["scheduled", "processing"],
  complete: ["complete"]
} as const satisfies Record<string, ReadonlyArray<PaymentState>>
