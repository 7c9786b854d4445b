/**
 * Payments: the list with its filters in the URL (`?state=&query_type=&recipient=&start_date=&end_date=`), a
 * payment's detail (`/payments/pa-…`), and a new payment (`/payments/new`).
 */
import { usePayments, useUsers } from "../api/Queries.ts"
import { type PageProps, pagePath } from "../navigation/Pages.ts"
import { navigate, useSearch } from "../navigation/Router.tsx"
import { Button, PageHeader } from "../ui/Controls.tsx"
import { nameOf } from "../ui/Format.tsx"
import { Empty, ErrorNotice, Loading } from "../ui/Notice.tsx"
import { NewPayment } from "./NewPayment.tsx"
import { PaymentDetail } from "./PaymentDetail.tsx"
import { PaymentRows } from "./PaymentRows.tsx"

const filterNames = ["state", "query_type", "recipient", "start_date", "end_date"] as const

const Filters = ({ team }: { readonly team: string }) => {
  const [search, setSearch] = useSearch()
  const users = useUsers(team)
  const select = (name: string) => ({
    id: `filter-${name}`,
    value: search.get(name) ?? "",
    onChange: (event: { target: { value: string } }) => setSearch({ [name]: event.target.value, limit: undefined })
  })
  return (
    <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
      <div className="field">
        <label htmlFor="filter-state">State</label>
        <select {...select("state")}>
          <option value="">All</option>
          <option value="intent">Scheduled (intents)</option>
          <option value="scheduled">In flight or due</option>
          <option value="complete">Complete</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-query_type">Direction</label>
        <select {...select("query_type")}>
          <option value="">Paid out</option>
          <option value="receivable">Received</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-recipient">Paid to</label>
        <select {...select("recipient")}>
          <option value="">Anyone</option>
          {(users.data ?? [])
            .filter((user) => user.payable)
            .map((user) => (
              <option key={user.nanoid} value={user.nanoid}>
                {nameOf(user)}
              </option>
            ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="filter-start_date">From</label>
        <input type="date" {...select("start_date")} />
      </div>
      <div className="field">
        <label htmlFor="filter-end_date">Until</label>
        <input type="date" {...select("end_date")} />
      </div>
    </form>
  )
}

const PaymentList = ({ team }: PageProps) => {
  const [search, setSearch] = useSearch()
  const filters = Object.fromEntries(filterNames.map((name) => [name, search.get(name) ?? undefined]))
  const limit = Number(search.get("limit") ?? 50)
  const payments = usePayments(team.team, filters, limit)
  const filtered = filterNames.some((name) => search.has(name))
  const newPayment = team.may("payments.create") ? (
    <Button variant="primary" onClick={() => navigate(pagePath(team.team, "payments", "new"))}>
      New payment
    </Button>
  ) : undefined
  return (
    <>
      <PageHeader title="Payments" description="What the team paid and scheduled, newest first." actions={newPayment} />
      <section className="card" aria-label="Payments">
        <Filters team={team.team} />
        {payments.isPending ? <Loading what="payments" /> : null}
        {payments.isError ? <ErrorNotice error={payments.error} /> : null}
        {payments.data?.items.length === 0 ? (
          <Empty title={filtered ? "No payment matches these filters" : "No payments yet"}>
            {filtered ? "Change or clear the filters above." : "Payments the team makes show here, with their state."}
          </Empty>
        ) : null}
        {payments.data === undefined || payments.data.items.length === 0 ? null : (
          <>
            <PaymentRows team={team.team} items={payments.data.items} />
            {payments.data.next_cursor === null || payments.data.next_cursor === undefined || limit >= 1000 ? null : (
              <div className="table-foot">
                <Button
                  busy={payments.isFetching}
                  onClick={() => setSearch({ limit: String(Math.min(limit + 50, 1000)) })}
                >
                  Show more
                </Button>
              </div>
            )}
          </>
        )}
      </section>
    </>
  )
}

export const PaymentsPage = (props: PageProps) => {
  const [first] = props.rest
  if (first === "new") return <NewPayment team={props.team} />
  if (first !== undefined) return <PaymentDetail team={props.team} payment={first} />
  return <PaymentList {...props} />
}
