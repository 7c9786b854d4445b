/**
 * A new payment, in three steps: who and how much (members, a CSV file, or an e-mail), a review of the total against
 * the balance and of the typed data the wallet will sign (checked by the client to be exactly what was entered), then
 * the wallet's signature and the payment settling on chain, watched live.
 */
import type { PaymentResult, PreparedPayment } from "@svc/client"
import { parseCents } from "@svc/domain/payment"
import { useMutation } from "@tanstack/react-query"
import { useState } from "react"
import { useUsers } from "../api/Queries.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, Field, PageHeader } from "../ui/Controls.tsx"
import { ErrorNotice } from "../ui/Notice.tsx"
import { type CsvDraft, CsvUpload, emptyRow, MemberRows, type PayeeRow } from "./PayeesForm.tsx"
import { PaymentDone, PaymentReview } from "./PaymentReview.tsx"

type Mode = "members" | "csv" | "email"

interface Draft {
  readonly mode: Mode
  readonly rows: ReadonlyArray<PayeeRow>
  readonly csv: CsvDraft | undefined
  readonly email: { readonly address: string; readonly amount: string; readonly description: string }
  readonly later: boolean
  readonly payAt: string
}

const modes: ReadonlyArray<{ readonly mode: Mode; readonly label: string }> = [
  { mode: "members", label: "Team members" },
  { mode: "csv", label: "CSV file" },
  { mode: "email", label: "By e-mail" }
]

/** The rows' amounts in cents, or the problems of those that are not amounts. */
const centsOfRows = (rows: ReadonlyArray<PayeeRow>) => {
  const problems = new Map<number, string>()
  const payees = rows.map((row) => {
    const parsed = parseCents(row.amount)
    if (parsed._tag === "NotAnAmount") problems.set(row.key, parsed.reason)
    if (row.to === "") problems.set(row.key, "choose who is paid")
    const invoice_description = row.description.trim() === "" ? "Payment" : row.description.trim()
    return { to: row.to, amount_cents: parsed._tag === "Cents" ? parsed.cents : 0, invoice_description }
  })
  return { payees, problems }
}

const EmailFields = ({ draft, set }: { readonly draft: Draft; readonly set: (draft: Draft) => void }) => {
  const change = (field: keyof Draft["email"]) => (event: { target: { value: string } }) =>
    set({ ...draft, email: { ...draft.email, [field]: event.target.value } })
  return (
    <div className="form-grid">
      <Field label="Recipient" hint="Their e-mail: they claim the payment with it.">
        {(props) => <input {...props} type="email" value={draft.email.address} onChange={change("address")} />}
      </Field>
      <Field label="Amount" hint="At least 1.00.">
        {(props) => (
          <input
            {...props}
            inputMode="decimal"
            placeholder="0.00"
            value={draft.email.amount}
            onChange={change("amount")}
          />
        )}
      </Field>
      <Field label="Description">
        {(props) => (
          <input {...props} maxLength={1000} value={draft.email.description} onChange={change("description")} />
        )}
      </Field>
    </div>
  )
}

const Schedule = ({ draft, set }: { readonly draft: Draft; readonly set: (draft: Draft) => void }) => (
  <div className="form-grid">
    <label className="check">
      <input
        type="checkbox"
        checked={draft.later}
        onChange={(event) => set({ ...draft, later: event.target.checked })}
      />
      Pay later, at a date and time
    </label>
    {draft.later ? (
      <Field label="Pay on" hint="In your time zone; the service pays it then.">
        {(props) => (
          <input
            {...props}
            type="datetime-local"
            value={draft.payAt}
            onChange={(event) => set({ ...draft, payAt: event.target.value })}
          />
        )}
      </Field>
    ) : null}
  </div>
)

/** Prepares what the draft asks for: the client issues the typed data and checks it. */
const usePrepare = (team: TeamContext, draft: Draft) => {
  const client = useClient()
  return useMutation({
    mutationFn: async (): Promise<PreparedPayment> => {
      if (draft.mode === "email") {
        const cents = parseCents(draft.email.amount)
        if (cents._tag === "NotAnAmount") throw new Error(`Amount: ${cents.reason}`)
        return client.payments.prepareInstant({
          team: team.team,
          email: draft.email.address.trim(),
          amount_cents: cents.cents,
          invoice_description: draft.email.description.trim() || "Payment"
        })
      }
      const payees = draft.mode === "csv" ? (draft.csv?.payees ?? []) : centsOfRows(draft.rows).payees
      if (payees.length === 0) throw new Error("Nobody to pay yet: add a recipient or a CSV file")
      const payAt = draft.later ? new Date(draft.payAt) : undefined
      if (payAt !== undefined && Number.isNaN(payAt.getTime())) throw new Error("Pay on: choose a date and time")
      return client.payments.prepare({ team: team.team, to: payees, ...(payAt === undefined ? {} : { payAt }) })
    }
  })
}

export const NewPayment = ({ team }: { readonly team: TeamContext }) => {
  const users = useUsers(team.team)
  const members = (users.data ?? []).filter((user) => user.payable)
  const [draft, setDraft] = useState<Draft>({
    mode: "members",
    rows: [emptyRow()],
    csv: undefined,
    email: { address: "", amount: "", description: "" },
    later: false,
    payAt: ""
  })
  const [shownProblems, setShownProblems] = useState<ReadonlyMap<number, string>>(new Map())
  const prepare = usePrepare(team, draft)
  const [result, setResult] = useState<PaymentResult | undefined>(undefined)
  const back = (
    <Link className="crumb" to={pagePath(team.team, "payments")}>
      ← Payments
    </Link>
  )
  if (result !== undefined && prepare.data !== undefined) {
    return <PaymentDone team={team} prepared={prepare.data} result={result} crumb={back} />
  }
  if (prepare.data !== undefined) {
    return (
      <PaymentReview
        team={team}
        members={users.data ?? []}
        prepared={prepare.data}
        crumb={back}
        onBack={() => prepare.reset()}
        onPaid={setResult}
      />
    )
  }
  const review = () => {
    const problems = draft.mode === "members" ? centsOfRows(draft.rows).problems : new Map<number, string>()
    setShownProblems(problems)
    if (problems.size === 0) prepare.mutate()
  }
  return (
    <>
      <PageHeader
        crumb={back}
        title="New payment"
        description="Choose who to pay and how much; you review it before your wallet signs."
      />
      <section className="card card-pad stack" aria-label="Payees">
        <fieldset className="segmented">
          <legend className="sr-only">Pay</legend>
          {modes.map(({ mode, label }) => (
            <button
              key={mode}
              type="button"
              aria-pressed={draft.mode === mode}
              onClick={() => setDraft({ ...draft, mode })}
            >
              {label}
            </button>
          ))}
        </fieldset>
        {draft.mode === "members" ? (
          <MemberRows
            rows={draft.rows}
            members={members}
            problems={shownProblems}
            onChange={(rows) => setDraft({ ...draft, rows })}
          />
        ) : null}
        {draft.mode === "csv" ? (
          <CsvUpload draft={draft.csv} members={members} onChange={(csv) => setDraft({ ...draft, csv })} />
        ) : null}
        {draft.mode === "email" ? (
          <EmailFields draft={draft} set={setDraft} />
        ) : (
          <Schedule draft={draft} set={setDraft} />
        )}
        {prepare.isError ? <ErrorNotice error={prepare.error} title="The payment could not be prepared" /> : null}
        <div className="actions">
          <Button
            variant="primary"
            busy={prepare.isPending}
            disabled={draft.mode === "csv" && (draft.csv?.payees.length ?? 0) === 0}
            onClick={review}
          >
            Review
          </Button>
        </div>
      </section>
    </>
  )
}
