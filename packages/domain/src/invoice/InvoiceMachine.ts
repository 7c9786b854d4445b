/**
 * The life of an invoice: submitted by a member, then paid (in one payment or several), canceled by its author or
 * rejected by the team's finance roles.
 */
import { makeStateMachine } from "../StateMachine.ts"

/**
 * The invoice machine. `canceled` and `rejected` are terminal.
 *
 * - `hold`: a payment request whose execution is claimed takes it, before anything is sent (decision 0106).
 * - `pay`: a payment of what was left to pay completed; the invoice is paid.
 * - `pay_part`: a payment of less than what was left completed (a partial payment, or a pay schedule's instalment).
 * - `reorganise`: a payment of it was recorded again with another transaction, after the chain lost the first one.
 * - `cancel`: its author withdrew it before any of it was paid.
 * - `reject`: a finance role refused it, with a reason.
 */
export const InvoiceMachine = makeStateMachine({
  name: "invoice",
  states: ["submitted", "partially_paid", "paid", "canceled", "rejected"],
  triggers: ["hold", "pay", "pay_part", "reorganise", "cancel", "reject"],
  transitions: {
    submitted: { hold: "submitted", pay: "paid", pay_part: "partially_paid", cancel: "canceled", reject: "rejected" },
    partially_paid: { hold: "partially_paid", pay: "paid", pay_part: "partially_paid", reorganise: "partially_paid" },
    paid: { reorganise: "paid" },
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
