/**
 * Members' invoices a new pay schedule pays in instalments (issue 38, docs/invoices.md): each row chooses one of the
 * team's invoices still to pay (submitted or partly paid) and, optionally, what each instalment pays of it; left
 * empty, what is left of it divided by the number of instalments.
 */
import type { PreparedSchedule } from "@svc/client"
import { formatCents, parseCents } from "@svc/domain/payment"
import type { Invoice, TeamUser } from "../api/Types.ts"
import { Button, Field } from "../ui/Controls.tsx"
import { Money, nameOf } from "../ui/Format.tsx"

const nameIn = (members: ReadonlyArray<TeamUser>, id: string) => {
  const found = members.find((member) => member.nanoid === id)
  return found === undefined ? id : nameOf(found)
}

/** One invoice row of the form; the amount is kept as typed until review. */
export interface InvoiceRow {
  readonly key: number
  readonly invoice: string
  readonly amount: string
}

let nextKey = 1
export const invoiceRow = (invoice = ""): InvoiceRow => ({ key: nextKey++, invoice, amount: "" })

/** Whether an invoice still has something to pay and nothing pays it now, so that a schedule may pay it. */
export const isPayable = (invoice: Invoice) =>
  (invoice.invoice_status === "submitted" || invoice.invoice_status === "partially_paid") && invoice.held_by === null

/** The rows as the API takes them, or the problems of those that cannot be asked for yet. */
export const invoiceEntriesOf = (rows: ReadonlyArray<InvoiceRow>) => {
  const problems = new Map<number, string>()
  const entries = rows.map((row) => {
    if (row.invoice === "") problems.set(row.key, "choose an invoice")
    if (row.amount.trim() === "") return { invoice_nanoid: row.invoice }
    const parsed = parseCents(row.amount)
    if (parsed._tag === "NotAnAmount") problems.set(row.key, parsed.reason)
    return { invoice_nanoid: row.invoice, amount_cents: parsed._tag === "Cents" ? parsed.cents : 0 }
  })
  return { entries, problems }
}

export const InvoiceRows = ({
  rows,
  invoices,
  members,
  problems,
  onChange
}: {
  readonly rows: ReadonlyArray<InvoiceRow>
  readonly invoices: ReadonlyArray<Invoice>
  readonly members: ReadonlyArray<TeamUser>
  readonly problems: ReadonlyMap<number, string>
  readonly onChange: (rows: ReadonlyArray<InvoiceRow>) => void
}) => {
  const update = (key: number, change: Partial<InvoiceRow>) =>
    onChange(rows.map((row) => (row.key === key ? { ...row, ...change } : row)))
  const author = (id: string) => nameIn(members, id)
  return (
    <div className="payee-rows">
      {rows.map((row, index) => (
        <fieldset key={row.key} className="payee-row" aria-label={`Invoice ${index + 1}`}>
          <Field label="Invoice" problem={problems.get(row.key)}>
            {(props) => (
              <select
                {...props}
                value={row.invoice}
                onChange={(event) => update(row.key, { invoice: event.target.value })}
              >
                <option value="">Choose an invoice</option>
                {invoices.map((invoice) => (
                  <option key={invoice.nanoid} value={invoice.nanoid}>
                    {`${invoice.invoice_number}, ${author(invoice.recipient_nanoid)} (${formatCents(invoice.amount_cents - invoice.paid_cents)} left)`}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Each instalment" hint="Optional: by default what is left, divided by the instalments.">
            {(props) => (
              <input
                {...props}
                inputMode="decimal"
                placeholder="0.00"
                value={row.amount}
                onChange={(event) => update(row.key, { amount: event.target.value })}
              />
            )}
          </Field>
          <Button
            className="ghost small"
            aria-label={`Remove invoice ${index + 1}`}
            onClick={() => onChange(rows.filter((candidate) => candidate.key !== row.key))}
          >
            Remove
          </Button>
        </fieldset>
      ))}
      <div className="actions">
        <Button onClick={() => onChange([...rows, invoiceRow()])}>Add invoice</Button>
      </div>
    </div>
  )
}

/** Who each instalment of a prepared schedule pays, how much, and for what (an invoice by its number). */
export const ScheduledPayees = ({
  payees,
  members
}: {
  readonly payees: PreparedSchedule["payees"]
  readonly members: ReadonlyArray<TeamUser>
}) => (
  <table className="data">
    <thead>
      <tr>
        <th scope="col">Recipient</th>
        <th scope="col" className="num">
          Amount
        </th>
        <th scope="col">For</th>
      </tr>
    </thead>
    <tbody>
      {payees.map((payee, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the typed data's order, which never moves
        <tr key={index}>
          <td data-label="Recipient" className="primary">
            {nameIn(members, payee.to)}
          </td>
          <td data-label="Amount" className="num">
            <Money cents={payee.amount_cents} />
          </td>
          <td data-label="For" className="wrap-anywhere">
            {payee.invoice === undefined
              ? payee.invoice_description || <span className="muted">—</span>
              : `Invoice ${payee.invoice.invoice_number}, ${formatCents(payee.invoice.left_cents)} left of it`}
          </td>
        </tr>
      ))}
    </tbody>
  </table>
)
