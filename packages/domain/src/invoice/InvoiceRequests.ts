/**
 * Request and response bodies of the invoice routes (issue 38), with their limits (docs/decisions/0104).
 */
import { Schema } from "effect"
import { withDefault } from "../FieldDefault.ts"
import { TeamId } from "../Ids.ts"
import { AmountCents, CurrencyField, maxDescriptionLength, PaymentsPageSize } from "../payment/PaymentRequests.ts"
import { PlainText } from "../Text.ts"
import { CalendarDate } from "../Timestamp.ts"
import { FlatType, InvoiceType } from "./Invoice.ts"
import { InvoiceMachine } from "./InvoiceMachine.ts"

/** Most time entries on one invoice. */
export const maxTimeEntries = 500

/** Highest hourly rate, in cents: 100,000.00 USD an hour. */
export const maxHourlyRateCents = 10_000_000

/** An invoice number: the member's own, 1 to 64 characters on one line. */
export const InvoiceNumber = PlainText({ min: 1, max: 64, what: "an invoice number" })

const Description = (what: string) => PlainText({ max: maxDescriptionLength, what, multiline: true })
const EmptyDefault = (what: string) => {
  const text = Description(what)
  return withDefault<typeof text>("")(text)
}

const Hours = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 24 })))
const Minutes = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 59 })))

/** A time entry as a member sends it: a day, hours and minutes (more than none, at most a day), and notes. */
export const TimeEntryRequest = Schema.Struct({
  date: CalendarDate,
  hours: Hours,
  minutes: withDefault<typeof Minutes>(0)(Minutes),
  notes: EmptyDefault("time entry notes")
}).pipe(
  Schema.check(
    Schema.makeFilter(
      (entry) =>
        (entry.hours * 60 + entry.minutes > 0 && entry.hours * 60 + entry.minutes <= 24 * 60) ||
        "A time entry is more than no time and at most 24 hours"
    )
  )
)
export type TimeEntryRequest = typeof TimeEntryRequest.Type

/**
 * POST /v2/invoices body. A `flat` invoice gives its `amount_cents`; a `time_entry` invoice gives its entries and
 * hourly rate, and its amount is computed from them (one given that disagrees is refused).
 */
export const CreateInvoiceRequest = Schema.Struct({
  team_nanoid: TeamId,
  invoice_number: InvoiceNumber,
  type: withDefault<typeof InvoiceType>("flat")(InvoiceType),
  flat_type: withDefault<typeof FlatType>("service")(FlatType),
  amount_cents: Schema.optionalKey(AmountCents),
  currency: CurrencyField,
  invoice_description: EmptyDefault("an invoice description"),
  role_description: EmptyDefault("a role description"),
  time_entries: Schema.optionalKey(
    Schema.Array(TimeEntryRequest).pipe(Schema.check(Schema.isMinLength(1), Schema.isMaxLength(maxTimeEntries)))
  ),
  hourly_rate_usd_cents: Schema.optionalKey(
    Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: maxHourlyRateCents })))
  ),
  due_date: Schema.optionalKey(CalendarDate)
}).pipe(
  Schema.check(
    Schema.makeFilter((body) =>
      body.type === "flat"
        ? (body.amount_cents !== undefined &&
            body.time_entries === undefined &&
            body.hourly_rate_usd_cents === undefined) || {
            path: ["amount_cents"],
            issue: "A flat invoice gives amount_cents, and no time_entries or hourly_rate_usd_cents"
          }
        : (body.time_entries !== undefined && body.hourly_rate_usd_cents !== undefined) || {
            path: ["time_entries"],
            issue: "A time_entry invoice gives time_entries and hourly_rate_usd_cents"
          }
    )
  )
)
export type CreateInvoiceRequest = typeof CreateInvoiceRequest.Type

/** POST /v2/invoices/{iv}/reject body: why, for the member to read. */
export const RejectInvoiceRequest = Schema.Struct({
  reason: PlainText({ min: 1, max: maxDescriptionLength, what: "a reason", multiline: true })
})
export type RejectInvoiceRequest = typeof RejectInvoiceRequest.Type

/** The invoices list's cursor as it travels: URL-safe base64 of the last invoice's place, at most 200 characters. */
export const InvoicesCursorParam = Schema.String.pipe(
  Schema.check(
    Schema.isMinLength(1),
    Schema.isMaxLength(200),
    Schema.isPattern(/^[A-Za-z0-9_-]+$/u, { message: "Expected a cursor from an earlier answer's next_cursor" })
  ),
  Schema.annotate({ description: "`next_cursor` of the previous page, unchanged, with the same filters" })
)

/** GET /v2/invoices query: a team's invoices (a member: their own), of one status if given, a page at a time. */
export const InvoicesQuery = Schema.Struct({
  team_nanoid: TeamId,
  status: Schema.optionalKey(InvoiceMachine.State),
  limit: Schema.optionalKey(PaymentsPageSize),
  cursor: Schema.optionalKey(InvoicesCursorParam)
})
export type InvoicesQuery = typeof InvoicesQuery.Type

const Payment = Schema.Struct({
  payment_nanoid: Schema.String,
  amount_cents: Schema.Int,
  transaction: Schema.String,
  block_number: Schema.NullOr(Schema.Int),
  paid_at: Schema.String
})

/** An invoice as the routes answer it (SPEC §2.3's `invoice` fields, and what it was paid). */
export const InvoiceView = Schema.Struct({
  nanoid: Schema.String,
  team_nanoid: Schema.String,
  recipient_nanoid: Schema.String,
  invoice_number: Schema.String,
  type: InvoiceType,
  flat_type: FlatType,
  amount_cents: Schema.Int,
  paid_cents: Schema.Int,
  currency: Schema.String,
  invoice_description: Schema.String,
  role_description: Schema.String,
  time_entries: Schema.Array(
    Schema.Struct({ date: Schema.String, hours: Schema.Int, minutes: Schema.Int, notes: Schema.String })
  ),
  hourly_rate_usd_cents: Schema.Int,
  due_date: Schema.NullOr(Schema.String),
  invoice_status: InvoiceMachine.State,
  /** Why it was rejected; `null` otherwise. */
  reason: Schema.NullOr(Schema.String),
  /** The completed payments that paid it, oldest first. */
  payments: Schema.Array(Payment),
  /**
   * What is paying it now, so that nothing else may (decision 0117): a payment under way or registered for later, or
   * an active pay schedule; `null` when nothing is.
   */
  held_by: Schema.NullOr(Schema.Struct({ kind: Schema.Literals(["payment", "pay_schedule"]), nanoid: Schema.String })),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type InvoiceView = typeof InvoiceView.Type

/** One invoice in the success envelope. */
export const InvoiceResponse = Schema.Struct({ success: Schema.Literal(true), data: InvoiceView })
export type InvoiceResponse = typeof InvoiceResponse.Type

/** GET /v2/invoices answer: newest first, and where the next page starts (`null` on the last). */
export const InvoicesResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ items: Schema.Array(InvoiceView), next_cursor: Schema.NullOr(Schema.String) })
})
export type InvoicesResponse = typeof InvoicesResponse.Type
