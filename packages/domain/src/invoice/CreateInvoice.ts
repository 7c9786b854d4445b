/** A member bills their team (POST /v2/invoices): the invoice, `submitted`, and its `invoice.created`, in one unit. */
import { Effect } from "effect"
import { IdGenerator } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import { type Invoice, timeEntriesAmountCents } from "./Invoice.ts"
import { InvoiceAmountMismatch } from "./InvoiceErrors.ts"
import { InvoiceRepository } from "./InvoiceRepository.ts"
import type { CreateInvoiceRequest } from "./InvoiceRequests.ts"
import { invoiceEventOf, invoiceViewOf, nowIso } from "./InvoiceSteps.ts"

/** The largest total of an invoice, as of a payment entry (10,000,000,000 cents). */
const maxAmountCents = 10_000_000_000

/** The invoice's amount: a flat invoice's own; a time-entry invoice's from its entries, which a given one must match. */
const amountOf = (body: CreateInvoiceRequest) => {
  if (body.type === "flat") return Effect.succeed(body.amount_cents ?? 0)
  const rate = body.hourly_rate_usd_cents ?? 0
  const computed = timeEntriesAmountCents(body.time_entries ?? [], rate)
  if (computed < 1 || computed > maxAmountCents) {
    return Effect.fail(
      new InvoiceAmountMismatch({
        message: `The time entries come to ${computed} cents at ${rate} cents an hour; an invoice is 1 to ${maxAmountCents} cents`
      })
    )
  }
  if (body.amount_cents !== undefined && body.amount_cents !== computed) {
    return Effect.fail(
      new InvoiceAmountMismatch({
        message: `The time entries come to ${computed} cents at ${rate} cents an hour, not the ${body.amount_cents} given in amount_cents`
      })
    )
  }
  return Effect.succeed(computed)
}

/**
 * The caller, an employee or contractor of the team, bills it. The number is theirs to choose, once per team; the
 * amount of a time-entry invoice is its entries' (`timeEntriesAmountCents`).
 */
export const createInvoice = Effect.fn("Invoices.create")(function* (caller: Caller, body: CreateInvoiceRequest) {
  const { team } = yield* TeamAccess.use((access) => access.authorize(caller, body.team_nanoid, "invoices.create"))
  const amount = yield* amountOf(body)
  const nanoid = yield* IdGenerator.use((ids) => ids.make("invoice"))
  const now = yield* nowIso
  const invoice: Invoice = {
    nanoid,
    team_nanoid: team.nanoid,
    recipient_nanoid: caller.nanoid,
    invoice_number: body.invoice_number,
    type: body.type,
    flat_type: body.flat_type,
    amount_cents: amount,
    currency: body.currency,
    invoice_description: body.invoice_description,
    role_description: body.role_description,
    time_entries: body.type === "time_entry" ? (body.time_entries ?? []) : [],
    hourly_rate_usd_cents: body.type === "time_entry" ? (body.hourly_rate_usd_cents ?? 0) : 0,
    due_date: body.due_date ?? null,
    state: "submitted",
    paid_cents: 0,
    payments: [],
    revision: 0,
    created_at: now,
    updated_at: now
  }
  const event = yield* invoiceEventOf(invoice, team, "invoice.created")
  yield* withEvents(
    InvoiceRepository.use((invoices) => invoices.create(invoice)),
    () => [event]
  )
  return invoiceViewOf(invoice)
})
