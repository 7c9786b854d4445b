/**
 * Invoices (issue 38, docs/invoices.md): the team's invoices for its managers, a member's own for them, filtered by
 * state in the URL (`?status=`); an invoice's detail (`/invoices/iv-…`); a new one (`/invoices/new`) for a member.
 */
import { useInvoices, useUsers } from "../api/Queries.ts"
import type { Invoice } from "../api/Types.ts"
import { type PageProps, pagePath } from "../navigation/Pages.ts"
import { Link, navigate, useSearch } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { InvoiceStateBadge } from "../ui/Badge.tsx"
import { Button, PageHeader } from "../ui/Controls.tsx"
import { DateTime, Money, nameOf } from "../ui/Format.tsx"
import { Empty, ErrorNotice, Loading } from "../ui/Notice.tsx"
import { InvoiceDetail } from "./InvoiceDetail.tsx"
import { NewInvoice } from "./NewInvoice.tsx"

const statuses = [
  ["", "All"],
  ["submitted", "Submitted"],
  ["partially_paid", "Partly paid"],
  ["paid", "Paid"],
  ["rejected", "Rejected"],
  ["canceled", "Canceled"]
] as const

const InvoiceRows = ({ team, items }: { readonly team: TeamContext; readonly items: ReadonlyArray<Invoice> }) => {
  const users = useUsers(team.team, team.may("team.users.list"))
  const author = (id: string) => {
    if (id === team.me) return "You"
    const user = users.data?.find((candidate) => candidate.nanoid === id)
    return user === undefined ? id : nameOf(user)
  }
  return (
    <table className="data">
      <thead>
        <tr>
          <th scope="col">Number</th>
          <th scope="col">Billed by</th>
          <th scope="col">Submitted</th>
          <th scope="col">State</th>
          <th scope="col" className="num">
            Amount
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((invoice) => (
          <tr key={invoice.nanoid}>
            <td data-label="Number" className="primary wrap-anywhere">
              <Link to={pagePath(team.team, "invoices", invoice.nanoid)}>{invoice.invoice_number}</Link>
            </td>
            <td data-label="Billed by">{author(invoice.recipient_nanoid)}</td>
            <td data-label="Submitted">
              <DateTime value={invoice.created_at} />
            </td>
            <td data-label="State">
              <InvoiceStateBadge state={invoice.invoice_status} />
            </td>
            <td data-label="Amount" className="num">
              <Money cents={invoice.amount_cents} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const InvoiceList = ({ team }: PageProps) => {
  const [search, setSearch] = useSearch()
  const status = search.get("status") || undefined
  const invoices = useInvoices(team.team, status)
  const create = team.may("invoices.create") ? (
    <Button variant="primary" onClick={() => navigate(pagePath(team.team, "invoices", "new"))}>
      New invoice
    </Button>
  ) : undefined
  const whose = team.may("invoices.read") ? "The team's invoices" : "Your invoices to the team"
  return (
    <>
      <PageHeader title="Invoices" description={`${whose}, newest first.`} actions={create} />
      <section className="card" aria-label="Invoices">
        <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
          <div className="field">
            <label htmlFor="filter-status">State</label>
            <select
              id="filter-status"
              value={status ?? ""}
              onChange={(event) => setSearch({ status: event.target.value })}
            >
              {statuses.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
        </form>
        {invoices.isPending ? <Loading what="invoices" /> : null}
        {invoices.isError ? <ErrorNotice error={invoices.error} /> : null}
        {invoices.data?.items.length === 0 ? (
          <Empty title={status === undefined ? "No invoices yet" : "No invoice in this state"}>
            {team.may("invoices.create")
              ? "Bill the team with New invoice; its finance roles pay it."
              : "Invoices the team's members submit show here."}
          </Empty>
        ) : null}
        {invoices.data === undefined || invoices.data.items.length === 0 ? null : (
          <InvoiceRows team={team} items={invoices.data.items} />
        )}
      </section>
    </>
  )
}

export const InvoicesPage = (props: PageProps) => {
  const [first] = props.rest
  if (first === "new") return <NewInvoice team={props.team} />
  if (first !== undefined) return <InvoiceDetail team={props.team} invoice={first} />
  return <InvoiceList {...props} />
}
