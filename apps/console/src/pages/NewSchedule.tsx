/**
 * A new pay schedule, as a new payment is made: who and how much each time, the interval, the first pay time and the
 * count; then a review of what the wallet will sign once for every instalment (checked by the client to be exactly what
 * was entered), and the signature that registers it on chain.
 */
import type { PreparedSchedule, ScheduleResult } from "@svc/client"
import { formatCents, parseCents } from "@svc/domain/payment"
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { type ReactNode, useState } from "react"
import { keys, useUsers } from "../api/Queries.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, Field, PageHeader } from "../ui/Controls.tsx"
import { DateTime, Hex } from "../ui/Format.tsx"
import { ErrorNotice, Notice } from "../ui/Notice.tsx"
import { emptyRow, MemberRows, type PayeeRow } from "./PayeesForm.tsx"

type Interval = "weekly" | "biweekly" | "monthly"

interface Draft {
  readonly rows: ReadonlyArray<PayeeRow>
  readonly interval: Interval
  readonly firstPayAt: string
  readonly count: string
}

/** The schedule the draft asks for, or why it cannot be asked for yet. */
const requestOf = (team: string, draft: Draft) => {
  const problems = new Map<number, string>()
  const to = draft.rows.map((row) => {
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
  return { problems, request: { team, to, interval: draft.interval, firstPayAt, count } }
}

/** The review: what each instalment pays, and the typed data the wallet signs once. */
const Review = ({
  prepared,
  crumb,
  onBack,
  onDone
}: {
  readonly prepared: PreparedSchedule
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

export const NewSchedule = ({ team }: { readonly team: TeamContext }) => {
  const client = useClient()
  const users = useUsers(team.team)
  const members = (users.data ?? []).filter((user) => user.payable)
  const [draft, setDraft] = useState<Draft>({ rows: [emptyRow()], interval: "weekly", firstPayAt: "", count: "4" })
  const [shownProblems, setShownProblems] = useState<ReadonlyMap<number, string>>(new Map())
  const [result, setResult] = useState<ScheduleResult | undefined>(undefined)
  const prepare = useMutation({
    mutationFn: async () => {
      const { request } = requestOf(team.team, draft)
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
    return <Review prepared={prepare.data} crumb={back} onBack={() => prepare.reset()} onDone={setResult} />
  }
  const review = () => {
    const { problems } = requestOf(team.team, draft)
    setShownProblems(problems)
    if (problems.size === 0) prepare.mutate()
  }
  return (
    <>
      <PageHeader
        crumb={back}
        title="New pay schedule"
        description="Who is paid how much each time, how often and how many times; you review it before your wallet signs."
      />
      <section className="card card-pad stack" aria-label="Schedule">
        <MemberRows
          rows={draft.rows}
          members={members}
          problems={shownProblems}
          onChange={(rows) => setDraft({ ...draft, rows })}
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
