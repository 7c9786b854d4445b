/**
 * Who to pay and how much, three ways: team members picked in rows, a CSV file in the command line's format
 * (`recipient,amount[,description]`, read by the domain's parser), or someone outside the team by e-mail (an instant
 * payment they claim with that e-mail).
 */
import { parsePayeesCsv } from "@svc/domain/payment"
import type { TeamUser } from "../api/Types.ts"
import { Button, Field } from "../ui/Controls.tsx"
import { nameOf } from "../ui/Format.tsx"
import { ErrorNotice } from "../ui/Notice.tsx"

/** One row of the members form; amounts are kept as typed until review. */
export interface PayeeRow {
  readonly key: number
  readonly to: string
  readonly amount: string
  readonly description: string
}

/** What the CSV file gave. */
export interface CsvDraft {
  readonly file: string
  readonly payees: ReadonlyArray<{ to: string; amount_cents: number; invoice_description: string }>
  readonly problem: string | undefined
}

let nextKey = 1
export const emptyRow = (): PayeeRow => ({ key: nextKey++, to: "", amount: "", description: "" })

export const MemberRows = ({
  rows,
  members,
  problems,
  onChange
}: {
  readonly rows: ReadonlyArray<PayeeRow>
  readonly members: ReadonlyArray<TeamUser>
  readonly problems: ReadonlyMap<number, string>
  readonly onChange: (rows: ReadonlyArray<PayeeRow>) => void
}) => {
  const update = (key: number, change: Partial<PayeeRow>) =>
    onChange(rows.map((row) => (row.key === key ? { ...row, ...change } : row)))
  return (
    <div className="payee-rows">
      {rows.map((row, index) => (
        <fieldset key={row.key} className="payee-row" aria-label={`Payee ${index + 1}`}>
          <Field label="Recipient">
            {(props) => (
              <select {...props} value={row.to} onChange={(event) => update(row.key, { to: event.target.value })}>
                <option value="">Choose a member</option>
                {members.map((member) => (
                  <option key={member.nanoid} value={member.nanoid}>
                    {nameOf(member)}
                    {member.email === "" ? "" : ` (${member.email})`}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Amount" problem={problems.get(row.key)}>
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
          <Field label="Description">
            {(props) => (
              <input
                {...props}
                maxLength={1000}
                value={row.description}
                onChange={(event) => update(row.key, { description: event.target.value })}
              />
            )}
          </Field>
          <Button
            className="ghost small"
            aria-label={`Remove payee ${index + 1}`}
            disabled={rows.length === 1}
            onClick={() => onChange(rows.filter((candidate) => candidate.key !== row.key))}
          >
            Remove
          </Button>
        </fieldset>
      ))}
      <div className="actions">
        <Button onClick={() => onChange([...rows, emptyRow()])}>Add recipient</Button>
      </div>
    </div>
  )
}

export const CsvUpload = ({
  draft,
  members,
  onChange
}: {
  readonly draft: CsvDraft | undefined
  readonly members: ReadonlyArray<TeamUser>
  readonly onChange: (draft: CsvDraft) => void
}) => {
  const read = async (file: File) => {
    const parsed = parsePayeesCsv(await file.text(), "Payment")
    onChange(
      parsed._tag === "Payees"
        ? { file: file.name, payees: parsed.payees, problem: undefined }
        : {
            file: file.name,
            payees: [],
            problem:
              parsed.line === undefined
                ? `${file.name} ${parsed.reason}`
                : `${file.name} line ${parsed.line}: ${parsed.reason}`
          }
    )
  }
  const unknown = draft?.payees.filter((payee) => !members.some((member) => member.nanoid === payee.to)) ?? []
  return (
    <div className="stack">
      <Field
        label="CSV file"
        hint={
          <>
            One payee a line: <code>recipient,amount,description</code> (a member's <code>us-…</code> id, dollars such
            as 1200.00, and an optional description), as <code>svc pay --csv</code> reads it.
          </>
        }
      >
        {(props) => (
          <input
            {...props}
            type="file"
            accept=".csv,text/csv,text/plain"
            onChange={(event) => {
              const file = event.target.files?.[0]
              if (file !== undefined) void read(file)
            }}
          />
        )}
      </Field>
      {draft?.problem === undefined ? null : <ErrorNotice error={new Error(draft.problem)} />}
      {unknown.length === 0 ? null : (
        <ErrorNotice
          error={new Error(`Not payable members of this team: ${unknown.map((payee) => payee.to).join(", ")}`)}
        />
      )}
      {draft === undefined || draft.payees.length === 0 ? null : (
        <p className="muted">
          {draft.file}: {draft.payees.length} {draft.payees.length === 1 ? "payee" : "payees"}, reviewed next.
        </p>
      )}
    </div>
  )
}
