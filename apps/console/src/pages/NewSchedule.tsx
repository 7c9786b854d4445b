/**
 * A new pay schedule, as a new payment is made: who and how much each time (members, and members' invoices paid in
 * instalments: `?invoice=iv-…` chooses one), the interval, the first pay time and the count; then a review of what the
 * wallet will sign once for every instalment (checked by the client to be exactly what was entered), and the signature
 * that registers it on chain.
 */
import type { PreparedSchedule, ScheduleResult } from "@svc/client"
import { formatCents, parseCents } from "@svc/domain/payment"
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { type ReactNode, useState } from "react"
import { keys, useInvoices, useUsers } from "../api/Queries.ts"
import type { Invoice, TeamUser } from "../api/Types.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link, useSearch } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, Field, PageHeader } from "../ui/Controls.tsx"
import { DateTime, Hex } from "../ui/Format.tsx"
import { ErrorNotice, Notice } from "../ui/Notice.tsx"
import { emptyRow, MemberRows, type PayeeRow } from "./PayeesForm.tsx"
import {
  type InvoiceRow,
  InvoiceRows,
  invoiceEntriesOf,
  invoiceRow,
  isPayable,
  ScheduledPayees
} from "./ScheduleInvoices.tsx"

type Interval = "weekly" | "biweekly" | "monthly"

interface Draft {
  readonly rows: ReadonlyArray<PayeeRow>
  readonly invoices: ReadonlyArray<InvoiceRow>
  readonly interval: Interval
  readonly firstPayAt: string
  readonly count: string
}

const isBlank = (row: PayeeRow) => row.to === "" && row.amount.trim() === "" && row.description.trim() === ""

/** The schedule the draft asks for, or why it cannot be asked for yet (member rows left blank are not asked for). */
const requestOf = (team: string, draft: Draft) => {
  const problems = new Map<number, string>()
  const invoices = invoiceEntriesOf(draft.invoices)
  const rows = draft.rows.filter((row) => !isBlank(row) || draft.invoices.length === 0)
  const members = rows.map((row) => {
    const parsed = parseCents(row.amount)
    if (parsed._tag === "NotAnAmount") problems.set(row.key, parsed.reason)
    if (row.to === "") problems.set(row.key, "choose who is paid")
    const description = row.description.trim()
    return {
      to: row.to,
      amount_cents: parsed._tag === "Cents" ? parsed.cents : 0,
      ...(description === "" ? {} : { invoice_description: description })
    }
  })
  const firstPayAt = new Date(draft.firstPayAt)
  const count = Number(draft.count)
  const to = [...members, ...invoices.entries]
  return {
    problems,
    invoiceProblems: invoices.problems,
    request: { team, to, interval: draft.interval, firstPayAt, count }
  }
}

/** The review: what each instalment pays, and the typed data the wallet signs once. */
const Review = ({
  prepared,
  members,
  crumb,
  onBack,
  onDone
}: {
  readonly prepared: PreparedSchedule
  readonly members: ReadonlyArray<TeamUser>
  readonly crumb: ReactNode
  readonly onBack: () => void
  readonly onDone: (result: ScheduleResult) => void
}) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const sign = useMutation({
    mutationFn: () => client.schedules.submit(prepared),
    onSuccess: onDone,
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.schedules(prepared.team) })
      await queryClient.invalidateQueries({ queryKey: keys.cashRequirement(prepared.team) })
      // The invoices it pays are held by it, or let go.
      await queryClient.invalidateQueries({ queryKey: keys.invoices(prepared.team) })
    }
  })
  const message = prepared.bundle.typed_data
  return (
    <>
      <PageHeader
        crumb={crumb}
        title="Review the schedule"
        description="Nothing is signed until you press Sign and schedule and approve it in your wallet."
      />
      <div className="grid">
        <section className="card" aria-labelledby="instalment-heading">
          <h2 id="instalment-heading" className="card-pad">
            Each instalment pays
          </h2>
          <ScheduledPayees payees={prepared.payees} members={members} />
        </section>
        <section className="typed-data stack" aria-labelledby="typed-data-heading">
          <h2 id="typed-data-heading">What your wallet will sign</h2>
          <p className="small">
            Checked: {prepared.count} {message.data.interval} instalments of {formatCents(prepared.instalmentCents)} to{" "}
            {message.data.payees.length} {message.data.payees.length === 1 ? "payee" : "payees"}, signed once by your
            wallet.
          </p>
          <dl className="facts small">
            <dt>Signed by</dt>
            <dd className="mono">{message.from}</dd>
            <dt>From the account</dt>
            <dd className="mono">{message.to}</dd>
            <dt>First pay</dt>
            <dd>
              <DateTime value={Number(message.data.firstPayAt)} />
            </dd>
          </dl>
          <details>
            <summary>The typed data, as sent to the wallet</summary>
            <pre className="mono small json">{JSON.stringify(prepared.bundle, null, 2)}</pre>
          </details>
        </section>
        {sign.isError ? <ErrorNotice error={sign.error} title="Not scheduled" /> : null}
        {sign.isPending ? <Notice tone="info">Approve the signature in your wallet…</Notice> : null}
        <div className="actions">
          <Button onClick={onBack} disabled={sign.isPending}>
            Back
          </Button>
          <Button variant="primary" busy={sign.isPending} onClick={() => sign.mutate()}>
            Sign and schedule
          </Button>
        </div>
      </div>
    </>
  )
}

/** Who each instalment pays: members by amount, and members' invoices. */
const Payees = ({
  draft,
  set,
  users,
  invoices,
  problems,
  invoiceProblems
}: {
  readonly draft: Draft
  readonly set: (draft: Draft) => void
  readonly users: ReadonlyArray<TeamUser>
  readonly invoices: ReadonlyArray<Invoice>
  readonly problems: ReadonlyMap<number, string>
  readonly invoiceProblems: ReadonlyMap<number, string>
}) => (
  <>
    <MemberRows
      rows={draft.rows}
      members={users.filter((user) => user.payable)}
      problems={problems}
      onChange={(rows) => set({ ...draft, rows })}
    />
    <h2 className="small">Invoices paid in instalments</h2>
    <InvoiceRows
      rows={draft.invoices}
      invoices={invoices}
      members={users}
      problems={invoiceProblems}
      onChange={(rows) => set({ ...draft, invoices: rows })}
    />
  </>
)

export const NewSchedule = ({ team }: { readonly team: TeamContext }) => {
  const client = useClient()
  const users = useUsers(team.team)
  const invoices = useInvoices(team.team, undefined)
  const payable = (invoices.data?.items ?? []).filter(isPayable)
  const [search] = useSearch()
  const chosen = search.get("invoice") ?? ""
  const [draft, setDraft] = useState<Draft>({
    rows: chosen === "" ? [emptyRow()] : [],
    invoices: chosen === "" ? [] : [invoiceRow(chosen)],
    interval: "weekly",
    firstPayAt: "",
    count: "4"
  })
  const [shownProblems, setShownProblems] = useState<ReadonlyMap<number, string>>(new Map())
  const [shownInvoiceProblems, setShownInvoiceProblems] = useState<ReadonlyMap<number, string>>(new Map())
  const [result, setResult] = useState<ScheduleResult | undefined>(undefined)
  const prepare = useMutation({
    mutationFn: async () => {
      const { request } = requestOf(team.team, draft)
      if (request.to.length === 0) throw new Error("Nobody to pay yet: add a recipient or an invoice")
      if (Number.isNaN(request.firstPayAt.getTime())) throw new Error("First pay: choose a date and time")
      return client.schedules.prepare(request)
    }
  })
  const back = (
    <Link className="crumb" to={pagePath(team.team, "schedules")}>
      ← Pay schedules
    </Link>
  )
  if (result !== undefined) {
    return (
      <>
        <PageHeader crumb={back} title="Schedule registered" />
        <Notice tone="success">
          <strong>Signed once; the chain pays each instalment when it comes due.</strong>
          <span>
            Transaction <Hex value={result.transaction} />
          </span>
        </Notice>
      </>
    )
  }
  if (prepare.data !== undefined) {
    return (
      <Review
        prepared={prepare.data}
        members={users.data ?? []}
        crumb={back}
        onBack={() => prepare.reset()}
        onDone={setResult}
      />
    )
  }
  const review = () => {
    const { problems, invoiceProblems } = requestOf(team.team, draft)
    setShownProblems(problems)
    setShownInvoiceProblems(invoiceProblems)
    if (problems.size === 0 && invoiceProblems.size === 0) prepare.mutate()
  }
  return (
    <>
      <PageHeader
        crumb={back}
        title="New pay schedule"
        description="Who is paid how much each time, how often and how many times; you review it before your wallet signs."
      />
      <section className="card card-pad stack" aria-label="Schedule">
        <Payees
          draft={draft}
          set={setDraft}
          users={users.data ?? []}
          invoices={payable}
          problems={shownProblems}
          invoiceProblems={shownInvoiceProblems}
        />
        <div className="form-grid">
          <Field label="Interval">
            {(props) => (
              <select
                {...props}
                value={draft.interval}
                onChange={(event) => setDraft({ ...draft, interval: event.target.value as Interval })}
              >
                <option value="weekly">Weekly</option>
                <option value="biweekly">Every two weeks</option>
                <option value="monthly">Monthly (the same day of the month)</option>
              </select>
            )}
          </Field>
          <Field label="First pay" hint="In your time zone; now or later.">
            {(props) => (
              <input
                {...props}
                type="datetime-local"
                value={draft.firstPayAt}
                onChange={(event) => setDraft({ ...draft, firstPayAt: event.target.value })}
              />
            )}
          </Field>
          <Field label="Instalments" hint="1 to 120.">
            {(props) => (
              <input
                {...props}
                type="number"
                min={1}
                max={120}
                value={draft.count}
                onChange={(event) => setDraft({ ...draft, count: event.target.value })}
              />
            )}
          </Field>
        </div>
        {prepare.isError ? <ErrorNotice error={prepare.error} title="The schedule could not be prepared" /> : null}
        <div className="actions">
          <Button variant="primary" busy={prepare.isPending} onClick={review}>
            Review
          </Button>
        </div>
      </section>
    </>
  )
}
