/**
 * The life of an invoice: submitted by a member, then paid (in one payment or several), canceled by its author or
 * rejected by the team's finance roles.
 */
import { makeStateMachine } from "../StateMachine.ts"

/**
 * The invoice machine. `paid`, `canceled` and `rejected` are terminal.
 *
 * - `pay`: a payment of what was left to pay completed; the invoice is paid.
 * - `pay_part`: a payment of less than what was left completed (a partial payment, or a pay schedule's instalment).
 * - `cancel`: its author withdrew it before any of it was paid.
 * - `reject`: a finance role refused it, with a reason.
 */
export const InvoiceMachine = makeStateMachine({
  name: "invoice",
  states: ["submitted", "partially_paid", "paid", "canceled", "rejected"],
  triggers: ["pay", "pay_part", "cancel", "reject"],
  transitions: {
    submitted: { pay: "paid", pay_part: "partially_paid", cancel: "canceled", reject: "rejected" },
    partially_paid: { pay: "paid", pay_part: "partially_paid" },
    paid: {},
    canceled: {},
    rejected: {}
  }
})

/** An invoice's state (`invoice_status`). */
export type InvoiceState = typeof InvoiceMachine.State.Type
/** What moves an invoice. */
export type InvoiceTrigger = typeof InvoiceMachine.Trigger.Type

/** The states in which an invoice may be paid: something is left to pay. */
export const payableInvoiceStates: ReadonlyArray<InvoiceState> = ["submitted", "partially_paid"]

/** The event each trigger publishes (SPEC §6), when it publishes one: a rejection is `invoice.canceled` with a reason. */
export const invoiceTriggerEvents = {
  cancel: "invoice.canceled",
  reject: "invoice.canceled"
} as const satisfies Partial<Record<InvoiceTrigger, string>>
