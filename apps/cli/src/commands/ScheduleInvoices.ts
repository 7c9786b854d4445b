/**
 * The invoices a pay schedule pays in instalments (`svc schedules create --invoice iv-...[=AMOUNT]`, issue 38): read
 * from the API as `svc pay --invoice` reads them, so that the summary shows them and the check of the typed data knows
 * what each instalment must pay of them.
 */
import type { InvoiceId, UserId } from "@svc/domain/Ids"
import { Effect } from "effect"
import { badArgument, type CliFailure } from "../Failure.ts"
import { formatCents, parseCents } from "../Money.ts"
import type { Payee } from "../Payees.ts"
import { invoiceId } from "./Ids.ts"
import { invoicePayees } from "./Invoices.ts"

/** An invoice the schedule pays, and the cents each instalment pays of it when given. */
export interface InvoiceEntry {
  readonly invoice: InvoiceId
  readonly amount: number | undefined
}

/** An `--invoice iv-...[=AMOUNT]` entry: the invoice, and the dollars each instalment pays of it if given. */
export const parseInvoiceEntry = (entry: string): Effect.Effect<InvoiceEntry, CliFailure> =>
  Effect.gen(function* () {
    const separator = entry.indexOf("=")
    const invoice = yield* invoiceId("--invoice", separator < 0 ? entry.trim() : entry.slice(0, separator).trim())
    const amount = separator < 0 ? undefined : yield* parseCents("--invoice", entry.slice(separator + 1))
    return { invoice, amount }
  })

/**
 * The payees of `--invoice` entries, read from the API as `svc pay --invoice` reads them: each invoice's author paid
 * the amount given each instalment, or what is left of it over `count`, refused here when that is not whole cents.
 */
export const scheduledInvoices = (
  url: string,
  client: Parameters<typeof invoicePayees>[1],
  entries: ReadonlyArray<InvoiceEntry>,
  count: number
) =>
  Effect.gen(function* () {
    const payees = yield* invoicePayees(
      url,
      client,
      entries.map((entry) => entry.invoice)
    )
    return yield* Effect.forEach(payees, (payee, index) => {
      const each = entries[index]?.amount ?? payee.amount_cents / count
      if (Number.isInteger(each)) return Effect.succeed({ ...payee, amount_cents: each })
      const left = `${payee.invoice} has ${formatCents(payee.amount_cents)} left to pay`
      return Effect.fail(
        badArgument("--invoice", `${left}, which ${count} equal instalments cannot pay: give ${payee.invoice}=AMOUNT`)
      )
    })
  })

/**
 * The schedule's entries as the API takes them: an invoice's amount only when given, else the API's own split (which
 * the check of the typed data holds to what the summary showed).
 */
export const entriesOf = (payees: ReadonlyArray<Payee>, invoices: ReadonlyArray<InvoiceEntry>) => {
  const given = new Map<string, number | undefined>(invoices.map((entry) => [entry.invoice, entry.amount]))
  return payees.map((p) => {
    if (p.invoice === undefined) {
      return { to: p.to as UserId, amount_cents: p.amount_cents, invoice_description: p.invoice_description }
    }
    const amount = given.get(p.invoice)
    return { invoice_nanoid: p.invoice as InvoiceId, ...(amount === undefined ? {} : { amount_cents: amount }) }
  })
}
