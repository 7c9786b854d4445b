/**
 * An invoice a person can read (GET /v2/invoices/{iv}/pdf): what the document shows, and the port that renders it.
 * The domain gathers both parties, the lines, the total, the status and what paid it; an adapter lays it out with a
 * PDF library (decision 0105).
 */
import { Context, type Effect } from "effect"
import type { Invoice } from "./Invoice.ts"

/** A party of the invoice: who billed, or who is billed. */
export interface InvoiceParty {
  readonly name: string
  /** The nanoid the service knows it by (`us-`, `te-`). */
  readonly nanoid: string
  /** Lines of its postal address, e-mail and wallet, as known; empty ones are left out. */
  readonly lines: ReadonlyArray<string>
}

/** One line of the document: what was billed and its amount in cents. */
export interface InvoiceLine {
  readonly description: string
  /** `2 h 30 min at 80.00 USD/h` for a time entry; empty for a flat line. */
  readonly detail: string
  readonly amount_cents: number
}

/** Everything the document shows, in the words it shows them. */
export interface InvoiceDocument {
  readonly invoice: Invoice
  /** The member who billed the team. */
  readonly from: InvoiceParty
  /** The team billed (and its company). */
  readonly to: InvoiceParty
  readonly lines: ReadonlyArray<InvoiceLine>
}

/** Renders an invoice document. Implementations must put every field's text in the document as text, not images. */
export class InvoiceRenderer extends Context.Service<
  InvoiceRenderer,
  { readonly pdf: (document: InvoiceDocument) => Effect.Effect<Uint8Array> }
>()("@svc/domain/invoice/InvoiceRenderer") {}

/** Cents as the document writes them: `1,234.50`. */
export const formatCents = (cents: number): string => {
  const whole = Math.trunc(Math.abs(cents) / 100)
  const part = String(Math.abs(cents) % 100).padStart(2, "0")
  return `${cents < 0 ? "-" : ""}${whole.toLocaleString("en-US")}.${part}`
}

/**
 * The lines of `invoice`: a flat invoice is one line of its description; a time-entry invoice, a line per entry
 * (their cents rounded each, so the total shown is the invoice's own, computed from the whole time).
 */
export const invoiceLinesOf = (invoice: Invoice): ReadonlyArray<InvoiceLine> => {
  if (invoice.type === "flat") {
    return [
      {
        description: invoice.invoice_description || `${invoice.flat_type === "product" ? "Product" : "Service"}`,
        detail: "",
        amount_cents: invoice.amount_cents
      }
    ]
  }
  const rate = invoice.hourly_rate_usd_cents
  return invoice.time_entries.map((entry) => ({
    description: `${entry.date}${entry.notes === "" ? "" : `: ${entry.notes}`}`,
    detail: `${entry.hours} h ${entry.minutes} min at ${formatCents(rate)} USD/h`,
    amount_cents: Math.round(((entry.hours * 60 + entry.minutes) * rate) / 60)
  }))
}
