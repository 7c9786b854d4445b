/**
 * A member bills their team (docs/invoices.md): a flat amount, or time entries at an hourly rate whose total the API
 * computes (shown here as it will be). Submitted, it opens the invoice.
 */
import { timeEntriesAmountCents } from "@svc/domain/invoice"
import { parseCents } from "@svc/domain/payment"
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useState } from "react"
import { keys } from "../api/Queries.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link, navigate } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, Field, PageHeader } from "../ui/Controls.tsx"
import { Money } from "../ui/Format.tsx"
import { ErrorNotice } from "../ui/Notice.tsx"

interface Entry {
  readonly key: number
  readonly date: string
  readonly hours: string
  readonly minutes: string
  readonly notes: string
}

interface Draft {
  readonly type: "flat" | "time_entry"
  readonly number: string
  readonly amount: string
  readonly rate: string
  readonly entries: ReadonlyArray<Entry>
  readonly description: string
  readonly due: string
}

let nextKey = 0
const emptyEntry = (): Entry => ({ key: nextKey++, date: "", hours: "", minutes: "0", notes: "" })

/** An entry's time as typed (0 while it is not a number yet). */
const timeOf = (entry: Entry) => ({ hours: Number(entry.hours) || 0, minutes: Number(entry.minutes) || 0 })

/** The body of `POST /v2/invoices`, or why the draft is not one yet. */
const bodyOf = (team: string, draft: Draft) => {
  // Every field, those with a default included: the client encodes the body with the contract's schema as typed.
  const common = {
    team_nanoid: team,
    invoice_number: draft.number.trim(),
    flat_type: "service" as const,
    currency: "USD" as const,
    invoice_description: draft.description.trim(),
    role_description: "",
    ...(draft.due === "" ? {} : { due_date: draft.due })
  }
  if (draft.type === "flat") {
    const amount = parseCents(draft.amount)
    if (amount._tag === "NotAnAmount") throw new Error(`Amount: ${amount.reason}`)
    return { ...common, type: "flat" as const, amount_cents: amount.cents }
  }
  const rate = parseCents(draft.rate)
  if (rate._tag === "NotAnAmount") throw new Error(`Hourly rate: ${rate.reason}`)
  const time_entries = draft.entries.map((entry) => ({ date: entry.date, ...timeOf(entry), notes: entry.notes.trim() }))
  return { ...common, type: "time_entry" as const, hourly_rate_usd_cents: rate.cents, time_entries }
}

const EntryRow = ({
  entry,
  index,
  onChange,
  onRemove
}: {
  readonly entry: Entry
  readonly index: number
  readonly onChange: (entry: Entry) => void
  readonly onRemove: (() => void) | undefined
}) => {
  const change = (field: keyof Entry) => (event: { target: { value: string } }) =>
    onChange({ ...entry, [field]: event.target.value })
  return (
    <fieldset className="payee-row time-entry-row" aria-label={`Time entry ${index + 1}`}>
      <Field label="Day">
        {(props) => <input {...props} type="date" value={entry.date} onChange={change("date")} />}
      </Field>
      <Field label="Hours">
        {(props) => <input {...props} inputMode="numeric" value={entry.hours} onChange={change("hours")} />}
      </Field>
      <Field label="Minutes">
        {(props) => <input {...props} inputMode="numeric" value={entry.minutes} onChange={change("minutes")} />}
      </Field>
      <Field label="Notes">
        {(props) => <input {...props} maxLength={1000} value={entry.notes} onChange={change("notes")} />}
      </Field>
      {onRemove === undefined ? null : (
        <Button variant="ghost" className="small" onClick={onRemove}>
          Remove
        </Button>
      )}
    </fieldset>
  )
}

export const NewInvoice = ({ team }: { readonly team: TeamContext }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const [draft, setDraft] = useState<Draft>({
    type: "flat",
    number: "",
    amount: "",
    rate: "",
    entries: [emptyEntry()],
    description: "",
    due: ""
  })
  const submit = useMutation({
    mutationFn: async () => (await client.invoices.create({ payload: bodyOf(team.team, draft) })).data,
    onSuccess: async (invoice) => {
      await queryClient.invalidateQueries({ queryKey: keys.invoices(team.team) })
      navigate(pagePath(team.team, "invoices", invoice.nanoid))
    }
  })
  const set = (field: keyof Draft) => (event: { target: { value: string } }) =>
    setDraft({ ...draft, [field]: event.target.value })
  const rate = parseCents(draft.rate)
  const back = (
    <Link className="crumb" to={pagePath(team.team, "invoices")}>
      ← Invoices
    </Link>
  )
  return (
    <>
      <PageHeader crumb={back} title="New invoice" description={`Bill ${team.name}; its finance roles pay it.`} />
      <section className="card card-pad stack" aria-label="Invoice">
        <fieldset className="segmented">
          <legend className="sr-only">Billed as</legend>
          {(["flat", "time_entry"] as const).map((type) => (
            <button
              key={type}
              type="button"
              aria-pressed={draft.type === type}
              onClick={() => setDraft({ ...draft, type })}
            >
              {type === "flat" ? "Flat amount" : "Time entries"}
            </button>
          ))}
        </fieldset>
        <div className="form-grid">
          <Field label="Invoice number" hint="Yours: each number once per team.">
            {(props) => <input {...props} maxLength={64} value={draft.number} onChange={set("number")} />}
          </Field>
          {draft.type === "flat" ? (
            <Field label="Amount">
              {(props) => (
                <input
                  {...props}
                  inputMode="decimal"
                  placeholder="0.00"
                  value={draft.amount}
                  onChange={set("amount")}
                />
              )}
            </Field>
          ) : (
            <Field label="Hourly rate">
              {(props) => (
                <input {...props} inputMode="decimal" placeholder="0.00" value={draft.rate} onChange={set("rate")} />
              )}
            </Field>
          )}
          <Field label="Due on">
            {(props) => <input {...props} type="date" value={draft.due} onChange={set("due")} />}
          </Field>
          <Field label="Description">
            {(props) => <input {...props} maxLength={1000} value={draft.description} onChange={set("description")} />}
          </Field>
        </div>
        {draft.type === "time_entry" ? (
          <div className="stack">
            {draft.entries.map((entry, index) => (
              <EntryRow
                key={entry.key}
                entry={entry}
                index={index}
                onChange={(changed) =>
                  setDraft({ ...draft, entries: draft.entries.map((e) => (e.key === entry.key ? changed : e)) })
                }
                onRemove={
                  draft.entries.length === 1
                    ? undefined
                    : () => setDraft({ ...draft, entries: draft.entries.filter((e) => e.key !== entry.key) })
                }
              />
            ))}
            <div className="actions">
              <Button onClick={() => setDraft({ ...draft, entries: [...draft.entries, emptyEntry()] })}>
                Add time entry
              </Button>
              <span className="muted">
                Total{" "}
                <Money
                  cents={rate._tag === "Cents" ? timeEntriesAmountCents(draft.entries.map(timeOf), rate.cents) : 0}
                />
              </span>
            </div>
          </div>
        ) : null}
        {submit.isError ? <ErrorNotice error={submit.error} title="The invoice was not submitted" /> : null}
        <div className="actions">
          <Button variant="primary" busy={submit.isPending} onClick={() => submit.mutate()}>
            Submit invoice
          </Button>
        </div>
      </section>
    </>
  )
}
