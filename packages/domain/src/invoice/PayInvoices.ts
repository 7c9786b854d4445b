/**
 * Paying invoices (issue 38; decisions 0106, 0117): the invoice side of the payment path, in three steps any payment
 * path calls (a batch, an intent, a pay schedule's instalments):
 * - `invoicePayeeOf`, as a request is issued: the invoice names whom to pay and how much, or why it cannot be paid;
 * - `holdInvoices` (`holdScheduleInvoices`), once a signed request's execution is claimed and before anything is
 *   sent: the request's (the schedule's) hold on each invoice it pays, so no other request pays them and their author
 *   cannot cancel them meanwhile;
 * - `payInvoices`, in the unit of work that records completed payments: each invoice paid (or partially paid) with
 *   the payment, its transaction and block, so the two are written together or not at all.
 */
import { Effect } from "effect"
import type { Claimed, IssuedPayment, IssuedSchedule } from "../eip712/IssuedRequestStore.ts"
import type { InvoiceId, PaymentId } from "../Ids.ts"
import type { Payment } from "../payment/Payment.ts"
import type { InvoicePaymentRequest } from "../payment/PaymentRequests.ts"
import type { Team } from "../team/Team.ts"
import { type Invoice, type InvoiceHold, type InvoicePayment, remainingCentsOf } from "./Invoice.ts"
import { InvoiceNotPayable } from "./InvoiceErrors.ts"
import { holdIsLive } from "./InvoiceHolds.ts"
import { InvoiceMachine } from "./InvoiceMachine.ts"
import { InvoiceRepository } from "./InvoiceRepository.ts"
import { nowIso } from "./InvoiceSteps.ts"

/** What an invoice entry pays: the invoice, the amount, and the description the payment carries. */
export interface InvoicePayee {
  readonly invoice: Invoice
  readonly amountCents: number
  readonly description: string
}

/** Why `invoice` cannot be paid `amount` (cents, default what is left) by the request of `salt`, if it cannot. */
const whyNotPayable = Effect.fn("PayInvoices.whyNotPayable")(function* (
  invoice: Invoice,
  amount: number | undefined,
  salt?: string
) {
  const refused = (why: string) =>
    new InvoiceNotPayable({ nanoid: invoice.nanoid, message: `${invoice.nanoid} ${why}` })
  switch (invoice.state) {
    case "paid":
      return refused("is paid already")
    case "canceled":
      return refused("was canceled by the member who billed it")
    case "rejected":
      return refused("was rejected by the team")
  }
  if (invoice.hold !== undefined && invoice.hold.salt !== salt && (yield* holdIsLive(invoice.hold))) {
    return refused(
      "schedule_nanoid" in invoice.hold
        ? `is being paid in instalments by pay schedule ${invoice.hold.schedule_nanoid}`
        : "is being paid by another payment (under way, or registered for later)"
    )
  }
  const left = remainingCentsOf(invoice)
  if (amount !== undefined && amount > left) {
    return refused(`has ${left} cents left to pay; the entry pays ${amount}`)
  }
  return undefined
})

/** The payee of an invoice entry of a request `team` issues, or why it cannot be paid, naming the invoice. */
export const invoicePayeeOf = Effect.fn("PayInvoices.invoicePayeeOf")(function* (
  team: Team,
  entry: InvoicePaymentRequest
) {
  const invoice = yield* InvoiceRepository.use((invoices) => invoices.findById(entry.invoice_nanoid)).pipe(
    Effect.catchTag("InvoiceNotFound", () => Effect.succeed(undefined))
  )
  if (invoice === undefined || invoice.team_nanoid !== team.nanoid) {
    const nanoid = entry.invoice_nanoid
    return yield* new InvoiceNotPayable({ nanoid, message: `${nanoid} is not an invoice of team ${team.nanoid}` })
  }
  const refused = yield* whyNotPayable(invoice, entry.amount_cents)
  if (refused !== undefined) return yield* refused
  const about = invoice.invoice_description === "" ? "" : `: ${invoice.invoice_description}`
  return {
    invoice,
    amountCents: entry.amount_cents ?? remainingCentsOf(invoice),
    description: `Invoice ${invoice.invoice_number}${about}`.slice(0, 1000)
  } satisfies InvoicePayee
})

/** A hold to take: on which invoice, for how much of it, and the payment that pays it if one payment does. */
interface Holding {
  readonly invoice: InvoiceId
  readonly amountCents: number
  readonly hold: InvoiceHold
  readonly payment?: PaymentId
}

/**
 * Takes the hold of the request of `salt` on one invoice (the machine's `hold`), tried again on a fresh read. An
 * invoice that lists the payment already was paid by this request: a request recovery sends again after a restored
 * chain lost its transaction needs no hold.
 */
const holdOne = Effect.fn("PayInvoices.holdOne")(function* (salt: string, holding: Holding) {
  for (let attempt = 0; attempt < 3; attempt++) {
    const invoice = yield* InvoiceRepository.use((invoices) => invoices.findById(holding.invoice)).pipe(Effect.orDie)
    if (invoice.payments.some((paid) => paid.payment_nanoid === holding.payment)) return
    const refused = yield* whyNotPayable(invoice, holding.amountCents, salt)
    if (refused !== undefined) return yield* refused
    if (invoice.hold?.salt === salt) return
    const to = yield* InvoiceMachine.transition(invoice.state, "hold").pipe(Effect.orDie)
    const held = yield* InvoiceRepository.use((invoices) =>
      invoices.transition(invoice.nanoid, invoice.state, to, {
        revision: invoice.revision,
        patch: { hold: holding.hold }
      })
    ).pipe(
      Effect.as(true),
      Effect.catchTag("StaleState", () => Effect.succeed(false)),
      Effect.orDie
    )
    if (held) return
  }
  return yield* new InvoiceNotPayable({
    nanoid: holding.invoice,
    message: `${holding.invoice} keeps changing; try again`
  })
})

/**
 * The claimed request's hold on every invoice it pays, before anything is sent (its first send, or recovery's sending
 * again), or `InvoiceNotPayable` naming the first that cannot be paid by it now (paid, closed, held by another live
 * request, or with less left than it pays). A hold it took before (the same request, taken over) stands.
 */
export const holdInvoices = Effect.fn("PayInvoices.holdInvoices")(function* (issued: Claimed<IssuedPayment>) {
  for (const payment of issued.request.payments) {
    if (payment.pays_invoice !== true) continue
    yield* holdOne(issued.salt, {
      invoice: payment.invoice_nanoid,
      amountCents: payment.amount_cents,
      hold: { salt: issued.salt, payment_nanoid: payment.nanoid },
      payment: payment.nanoid
    })
  }
})

/**
 * The claimed pay schedule's hold on every invoice it pays in instalments (decision 0117), before its registration is
 * sent: all its instalments together must fit in what is left of each. The hold stands while the schedule is active.
 */
export const holdScheduleInvoices = Effect.fn("PayInvoices.holdScheduleInvoices")(function* (
  issued: Claimed<IssuedSchedule>
) {
  const { schedule, payees, count } = issued.request
  for (const payee of payees) {
    if (payee.invoice_nanoid === undefined) continue
    yield* holdOne(issued.salt, {
      invoice: payee.invoice_nanoid,
      amountCents: payee.amount_cents * count,
      hold: { salt: issued.salt, schedule_nanoid: schedule }
    })
  }
})

/** Where the chain holds the transaction that completed a payment. */
export interface PaidBy {
  readonly transaction: string
  readonly block_number: number | null
}

/** The invoice's record of `payment` by `paidBy`: its move (pay, pay part, or a transaction recorded again) and patch. */
const paymentOf = Effect.fn("PayInvoices.paymentOf")(function* (invoice: Invoice, payment: Payment, paidBy: PaidBy) {
  const now = yield* nowIso
  const entry: InvoicePayment = {
    payment_nanoid: payment.nanoid,
    amount_cents: payment.amount_cents,
    transaction: paidBy.transaction,
    block_number: paidBy.block_number,
    paid_at: now
  }
  const listed = invoice.payments.find((paid) => paid.payment_nanoid === payment.nanoid)
  if (listed !== undefined) {
    if (listed.transaction === paidBy.transaction) return undefined
    // Recorded again after the chain lost its first transaction: the invoice names the one the chain holds now.
    const payments = invoice.payments.map((paid) =>
      paid.payment_nanoid === payment.nanoid ? { ...entry, paid_at: paid.paid_at } : paid
    )
    return { trigger: "reorganise" as const, patch: { payments, updated_at: now } }
  }
  const paid = invoice.paid_cents + payment.amount_cents
  return {
    trigger: paid >= invoice.amount_cents ? ("pay" as const) : ("pay_part" as const),
    patch: {
      paid_cents: paid,
      payments: [...invoice.payments, entry],
      updated_at: now,
      // A payment's hold ends with it; a schedule's stands until the invoice is paid or the schedule ends.
      ...(invoice.hold?.salt === payment.salt && ("payment_nanoid" in invoice.hold || paid >= invoice.amount_cents)
        ? { hold: null }
        : {})
    }
  }
})

/**
 * Records each completed payment of `payments` that pays an invoice on that invoice: `paid` once nothing is left,
 * else `partially_paid`, the payment listed with its transaction and block, its hold let go; a payment recorded again
 * with another transaction (a restored chain lost the first) moves the invoice's record of it along. Run it inside the
 * unit of work that records the payments, under the same fencing token: a lost race is a defect, so the unit is tried
 * again whole. An invoice that cannot take it (closed meanwhile, which its hold prevents) is left as it is, with a
 * warning: the money moved all the same, and the payment's own record says so.
 */
export const payInvoices = Effect.fn("PayInvoices.payInvoices")(function* (
  payments: ReadonlyArray<Payment>,
  paidBy: PaidBy
) {
  for (const payment of payments) {
    if (payment.pays_invoice !== true || payment.state !== "complete") continue
    const invoice = yield* InvoiceRepository.use((invoices) => invoices.findById(payment.invoice_nanoid)).pipe(
      Effect.orDie
    )
    const change = yield* paymentOf(invoice, payment, paidBy)
    if (change === undefined) continue
    const to = InvoiceMachine.next(invoice.state, change.trigger)
    if (to === undefined) {
      yield* Effect.logWarning(`payment ${payment.nanoid} completed for ${invoice.nanoid}, which is ${invoice.state}`)
      continue
    }
    yield* InvoiceRepository.use((invoices) =>
      invoices.transition(invoice.nanoid, invoice.state, to, { revision: invoice.revision, patch: change.patch })
    ).pipe(Effect.orDie)
  }
})
