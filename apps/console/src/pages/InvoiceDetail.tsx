/**
 * One invoice (docs/invoices.md): its lines, total, state and the payments that paid it, and what the member may do
 * with it: finance pays what is left (the same review before the wallet signs as a payment, with the invoice's id) or
 * rejects it with a reason, or pays it in instalments (a new pay schedule with the invoice chosen); its author cancels
 * it while unpaid; anyone who reads it downloads its PDF.
 */
import type { PaymentResult, PreparedPayment } from "@svc/client"
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { Fragment, useState } from "react"
import { keys, useInvoice, useUsers } from "../api/Queries.ts"
import type { Invoice } from "../api/Types.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link, navigate } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { InvoiceStateBadge } from "../ui/Badge.tsx"
import { Button, Field, PageHeader } from "../ui/Controls.tsx"
import { DateTime, Hex, Money, nameOf } from "../ui/Format.tsx"
import { ErrorNotice, Loading, Notice } from "../ui/Notice.tsx"
import { PaymentReview } from "./PaymentReview.tsx"

const Lines = ({ invoice }: { readonly invoice: Invoice }) =>
  invoice.type === "flat" ? null : (
    <table className="data">
      <thead>
        <tr>
          <th scope="col">Day</th>
          <th scope="col">Time</th>
          <th scope="col">Notes</th>
        </tr>
      </thead>
      <tbody>
        {invoice.time_entries.map((entry, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: entries have no id and never move
          <tr key={index}>
            <td data-label="Day">{entry.date}</td>
            <td data-label="Time">
              {entry.hours} h {String(entry.minutes).padStart(2, "0")}
            </td>
            <td data-label="Notes" className="wrap-anywhere">
              {entry.notes || <span className="muted">—</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )

const Facts = ({ invoice, author }: { readonly invoice: Invoice; readonly author: string }) => (
  <dl className="facts">
    <dt>State</dt>
    <dd>
      <InvoiceStateBadge state={invoice.invoice_status} />
    </dd>
    <dt>Billed by</dt>
    <dd>{author}</dd>
    <dt>Total</dt>
    <dd>
      <Money cents={invoice.amount_cents} />
      {invoice.type === "time_entry" ? (
        <span className="muted">
          {" "}
          at <Money cents={invoice.hourly_rate_usd_cents} /> an hour
        </span>
      ) : null}
    </dd>
    <dt>Paid</dt>
    <dd>
      <Money cents={invoice.paid_cents} />
    </dd>
    {invoice.held_by === null ? null : (
      <>
        <dt>Being paid by</dt>
        <dd>
          {invoice.held_by.kind === "pay_schedule" ? "Pay schedule " : "Payment "}
          <span className="mono">{invoice.held_by.nanoid}</span>
        </dd>
      </>
    )}
    <dt>Description</dt>
    <dd className="wrap-anywhere">{invoice.invoice_description || "—"}</dd>
    {invoice.due_date === null ? null : (
      <>
        <dt>Due on</dt>
        <dd>{invoice.due_date}</dd>
      </>
    )}
    {invoice.reason === null ? null : (
      <>
        <dt>Why it was rejected</dt>
        <dd className="wrap-anywhere">{invoice.reason}</dd>
      </>
    )}
    {invoice.payments.map((payment) => (
      <Fragment key={payment.payment_nanoid}>
        <dt>Paid in</dt>
        <dd className="mono wrap-anywhere">
          {payment.transaction} <span className="muted">(block {payment.block_number ?? "…"})</span>
        </dd>
      </Fragment>
    ))}
    <dt>Submitted</dt>
    <dd>
      <DateTime value={invoice.created_at} />
    </dd>
    <dt>Invoice id</dt>
    <dd className="mono">{invoice.nanoid}</dd>
  </dl>
)

/** Fetches the PDF with the session's token and hands it to the browser as a download. */
const useDownload = (invoice: Invoice) => {
  const client = useClient()
  return useMutation({
    mutationFn: async () => {
      const bytes = await client.invoices.pdf({ params: { invoice_nanoid: invoice.nanoid } })
      const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "application/pdf" }))
      const link = document.createElement("a")
      link.href = url
      link.download = `invoice-${invoice.invoice_number.replace(/[^\w.-]+/g, "_")}.pdf`
      link.click()
      window.setTimeout(() => URL.revokeObjectURL(url), 60_000)
    }
  })
}

const Reject = ({ team, invoice }: { readonly team: string; readonly invoice: Invoice }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const [reason, setReason] = useState<string | undefined>(undefined)
  const reject = useMutation({
    mutationFn: () =>
      client.invoices.reject({ params: { invoice_nanoid: invoice.nanoid }, payload: { reason: reason ?? "" } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.invoices(team) })
  })
  if (reason === undefined) return <Button onClick={() => setReason("")}>Reject</Button>
  return (
    <div className="stack">
      <Field label="Why it is rejected" hint="The member who billed it reads this.">
        {(props) => (
          <textarea {...props} maxLength={1000} value={reason} onChange={(event) => setReason(event.target.value)} />
        )}
      </Field>
      {reject.isError ? <ErrorNotice error={reject.error} title="Not rejected" /> : null}
      <div className="actions">
        <Button onClick={() => setReason(undefined)}>Keep it</Button>
        <Button variant="danger" busy={reject.isPending} onClick={() => reject.mutate()}>
          Reject invoice
        </Button>
      </div>
    </div>
  )
}

const Actions = ({
  team,
  invoice,
  onPrepared
}: {
  readonly team: TeamContext
  readonly invoice: Invoice
  readonly onPrepared: (prepared: PreparedPayment) => void
}) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const download = useDownload(invoice)
  const prepare = useMutation({
    mutationFn: () => client.invoices.prepare({ team: team.team, invoices: [invoice.nanoid] }),
    onSuccess: onPrepared
  })
  const cancel = useMutation({
    mutationFn: () => client.invoices.cancel({ params: { invoice_nanoid: invoice.nanoid } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.invoices(team.team) })
  })
  // What is being paid already (a payment under way or registered, a schedule's instalments) is neither paid again
  // nor canceled meanwhile: the API would refuse it.
  const free = invoice.held_by === null
  const open = (invoice.invoice_status === "submitted" || invoice.invoice_status === "partially_paid") && free
  return (
    <div className="stack">
      {prepare.isError ? <ErrorNotice error={prepare.error} title="The payment could not be prepared" /> : null}
      {cancel.isError ? <ErrorNotice error={cancel.error} title="Not canceled" /> : null}
      {download.isError ? <ErrorNotice error={download.error} title="No PDF" /> : null}
      <div className="actions">
        {open && team.may("payments.create") ? (
          <Button variant="primary" busy={prepare.isPending} onClick={() => prepare.mutate()}>
            Pay invoice
          </Button>
        ) : null}
        {open && team.may("payments.create") ? (
          <Button onClick={() => navigate(`${pagePath(team.team, "schedules", "new")}?invoice=${invoice.nanoid}`)}>
            Pay in instalments
          </Button>
        ) : null}
        {invoice.invoice_status === "submitted" && free && invoice.recipient_nanoid === team.me ? (
          <Button variant="danger" busy={cancel.isPending} onClick={() => cancel.mutate()}>
            Cancel invoice
          </Button>
        ) : null}
        <Button busy={download.isPending} onClick={() => download.mutate()}>
          Download PDF
        </Button>
      </div>
      {invoice.invoice_status === "submitted" && free && team.may("invoices.reject") ? (
        <Reject team={team.team} invoice={invoice} />
      ) : null}
    </div>
  )
}

export const InvoiceDetail = ({ team, invoice: id }: { readonly team: TeamContext; readonly invoice: string }) => {
  const [prepared, setPrepared] = useState<PreparedPayment | undefined>(undefined)
  const [result, setResult] = useState<PaymentResult | undefined>(undefined)
  const invoice = useInvoice(team.team, id, result !== undefined)
  const users = useUsers(team.team, team.may("team.users.list"))
  const queryClient = useQueryClient()
  const back = (
    <Link className="crumb" to={pagePath(team.team, "invoices")}>
      ← Invoices
    </Link>
  )
  if (invoice.isPending) return <Loading what="the invoice" />
  if (invoice.isError) return <ErrorNotice error={invoice.error} />
  const data = invoice.data
  if (prepared !== undefined && result === undefined) {
    return (
      <PaymentReview
        team={team}
        members={users.data ?? []}
        prepared={prepared}
        crumb={back}
        onBack={() => setPrepared(undefined)}
        onPaid={(paid) => {
          setResult(paid)
          void queryClient.invalidateQueries({ queryKey: keys.invoices(team.team) })
        }}
      />
    )
  }
  const author = users.data?.find((user) => user.nanoid === data.recipient_nanoid)
  const authorName =
    data.recipient_nanoid === team.me ? "You" : author === undefined ? data.recipient_nanoid : nameOf(author)
  return (
    <>
      <PageHeader crumb={back} title={`Invoice ${data.invoice_number}`} />
      <div className="grid">
        {result === undefined ? null : (
          <Notice tone={data.invoice_status === "paid" ? "success" : "info"}>
            <strong>{data.invoice_status === "paid" ? "Invoice paid" : "Payment sent"}</strong>
            <span>
              Transaction <Hex value={result.transaction} />
            </span>
          </Notice>
        )}
        <section className="card card-pad stack" aria-label="This invoice">
          <Facts invoice={data} author={authorName} />
          <Lines invoice={data} />
          <Actions team={team} invoice={data} onPrepared={setPrepared} />
        </section>
      </div>
    </>
  )
}
