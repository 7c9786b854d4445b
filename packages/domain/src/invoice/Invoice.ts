/**
 * Invoices: what a member bills their team (issue 38). The record the domain keeps, its time entries and the payments
 * that paid it, and the amount of a time-entry invoice.
 */
import { Schema } from "effect"
import { InvoiceId, PaymentId, PayScheduleId, TeamId, UserId } from "../Ids.ts"
import { CalendarDate, IsoTimestamp } from "../Timestamp.ts"
import { InvoiceMachine } from "./InvoiceMachine.ts"

/** What an invoice bills: a fixed amount (`flat`), or hours at an hourly rate (`time_entry`). */
export const InvoiceType = Schema.Literals(["flat", "time_entry"])
export type InvoiceType = typeof InvoiceType.Type

/** What a flat invoice is for (SPEC §2.3 `flat_type`). */
export const FlatType = Schema.Literals(["product", "service"])
export type FlatType = typeof FlatType.Type

/** One line of a time-entry invoice (SPEC §2.3 `time_entries`): a day, the time worked, and what was done. */
export const InvoiceTimeEntry = Schema.Struct({
  date: CalendarDate,
  hours: Schema.Int,
  minutes: Schema.Int,
  notes: Schema.String
})
export type InvoiceTimeEntry = typeof InvoiceTimeEntry.Type

/** A payment that paid (part of) the invoice, as the chain made it final. */
export const InvoicePayment = Schema.Struct({
  payment_nanoid: PaymentId,
  amount_cents: Schema.Int,
  transaction: Schema.String,
  block_number: Schema.NullOr(Schema.Int),
  paid_at: IsoTimestamp
})
export type InvoicePayment = typeof InvoicePayment.Type

/**
 * A payment request under way for the invoice: taken when a signed request claims its execution, so that no other
 * request pays it, and its author cannot cancel it, meanwhile. It lapses by itself when that request is released
 * (the chain refused it) or its payment fails or is canceled (`holdIsLive`).
 */
export const PaymentHold = Schema.Struct({ salt: Schema.String, payment_nanoid: PaymentId })

/**
 * A pay schedule paying the invoice in instalments (decision 0117): taken when its signed request claims its
 * execution, it stands while the schedule is registering or `active`, and lapses once the schedule is completed or
 * canceled.
 */
export const ScheduleHold = Schema.Struct({ salt: Schema.String, schedule_nanoid: PayScheduleId })

/** What holds an invoice: one payment request, or a pay schedule. */
export const InvoiceHold = Schema.Union([PaymentHold, ScheduleHold])
export type InvoiceHold = typeof InvoiceHold.Type

/** An invoice as recorded. */
export const Invoice = Schema.Struct({
  nanoid: InvoiceId,
  team_nanoid: TeamId,
  /** The member who billed the team, and whom its payments pay. */
  recipient_nanoid: UserId,
  /** The member's own number for it, unique per member and team. */
  invoice_number: Schema.String,
  type: InvoiceType,
  flat_type: FlatType,
  amount_cents: Schema.Int,
  currency: Schema.Literal("USD"),
  invoice_description: Schema.String,
  role_description: Schema.String,
  /** Empty for a flat invoice. */
  time_entries: Schema.Array(InvoiceTimeEntry),
  /** 0 for a flat invoice. */
  hourly_rate_usd_cents: Schema.Int,
  due_date: Schema.NullOr(CalendarDate),
  state: InvoiceMachine.State,
  /** What its completed payments paid so far. */
  paid_cents: Schema.Int,
  payments: Schema.Array(InvoicePayment),
  hold: Schema.optionalKey(InvoiceHold),
  /** Why it was rejected (`rejected` only). */
  reason: Schema.optionalKey(Schema.String),
  /** Grows by one with every write: each write names the revision it read, and the store refuses a stale one. */
  revision: Schema.Int,
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp
})
export type Invoice = typeof Invoice.Type

/** The minutes of a time entry. */
const minutesOf = (entry: Pick<InvoiceTimeEntry, "hours" | "minutes">) => entry.hours * 60 + entry.minutes

/**
 * The amount of time entries at an hourly rate, in cents: the total time in minutes times the rate, over 60, rounded
 * to the nearest cent (half up). Entries are summed first, so splitting a day in two never changes the total.
 */
export const timeEntriesAmountCents = (
  entries: ReadonlyArray<Pick<InvoiceTimeEntry, "hours" | "minutes">>,
  hourlyRateCents: number
): number => Math.round((entries.reduce((sum, entry) => sum + minutesOf(entry), 0) * hourlyRateCents) / 60)

/** What is left to pay of the invoice, in cents. */
export const remainingCentsOf = (invoice: Pick<Invoice, "amount_cents" | "paid_cents">): number =>
  Math.max(0, invoice.amount_cents - invoice.paid_cents)
