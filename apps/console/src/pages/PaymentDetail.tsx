/**
 * One payment: what, to whom, when, its state (changing live from in flight to complete) and its transactions. An
 * intent that has not started may be canceled.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query"
import { useState } from "react"
import { keys, usePayments } from "../api/Queries.ts"
import type { PaymentItem } from "../api/Types.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { PaymentStateBadge } from "../ui/Badge.tsx"
import { Button, CopyButton, PageHeader } from "../ui/Controls.tsx"
import { DateTime, Money, nameOf } from "../ui/Format.tsx"
import { Empty, ErrorNotice, Loading } from "../ui/Notice.tsx"

const Transaction = ({ label, hash }: { readonly label: string; readonly hash: string }) =>
  hash === "" ? null : (
    <>
      <dt>{label}</dt>
      <dd className="address-line">
        <span className="mono wrap-anywhere">{hash}</span>
        <CopyButton value={hash} label="Copy" />
      </dd>
    </>
  )

const Facts = ({ item }: { readonly item: PaymentItem }) => (
  <dl className="facts">
    <dt>Amount</dt>
    <dd>
      <Money cents={item.payment.amount_cents} />{" "}
      <span className="muted">({item.payment.currency_symbol}, paid in USDC)</span>
    </dd>
    <dt>State</dt>
    <dd>
      <PaymentStateBadge state={item.payment.state} />
    </dd>
    <dt>Recipient</dt>
    <dd>
      {nameOf(item.recipient)}
      {item.recipient.email === "" ? null : <span className="muted"> · {item.recipient.email}</span>}
    </dd>
    <dt>Paid by</dt>
    <dd>{item.payer.name || item.payer.nanoid}</dd>
    <dt>Description</dt>
    <dd>{item.invoice.invoice_description || "—"}</dd>
    <dt>Created</dt>
    <dd>
      <DateTime value={item.payment.created_at} />
    </dd>
    {item.payment.pay_at_time > 0 ? (
      <>
        <dt>Pay at</dt>
        <dd>
          <DateTime value={item.payment.pay_at_time} />
        </dd>
      </>
    ) : null}
    <Transaction label="Transaction" hash={item.payment.process_transaction} />
    {item.payment.creation_transaction === item.payment.process_transaction ? null : (
      <Transaction label="Registered in" hash={item.payment.creation_transaction} />
    )}
    <dt>Payment id</dt>
    <dd className="mono">{item.payment.nanoid}</dd>
  </dl>
)

const CancelIntent = ({ team, item }: { readonly team: string; readonly item: PaymentItem }) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const [confirming, setConfirming] = useState(false)
  const cancel = useMutation({
    mutationFn: () => client.payments.cancelIntent({ params: { payment_nanoid: item.payment.nanoid } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.payments(team) })
  })
  return (
    <div className="stack">
      {cancel.isError ? <ErrorNotice error={cancel.error} /> : null}
      {confirming ? (
        <div className="actions">
          <span>Cancel this payment? It will never be paid.</span>
          <Button variant="danger" busy={cancel.isPending} onClick={() => cancel.mutate()}>
            Yes, cancel it
          </Button>
          <Button onClick={() => setConfirming(false)}>Keep it</Button>
        </div>
      ) : (
        <div>
          <Button variant="danger" onClick={() => setConfirming(true)}>
            Cancel payment
          </Button>
        </div>
      )}
    </div>
  )
}

export const PaymentDetail = ({ team, payment }: { readonly team: TeamContext; readonly payment: string }) => {
  // There is no route for one payment: it is found among the team's latest, and polled with them while it moves.
  const payments = usePayments(team.team, {}, 1000)
  const item = payments.data?.items.find((candidate) => candidate.payment.nanoid === payment)
  const cancelable = item !== undefined && ["intent", "scheduled"].includes(item.payment.state ?? "")
  return (
    <>
      <PageHeader
        crumb={
          <Link className="crumb" to={pagePath(team.team, "payments")}>
            ← Payments
          </Link>
        }
        title={item === undefined ? "Payment" : `Payment to ${nameOf(item.recipient)}`}
      />
      {payments.isPending ? <Loading what="the payment" /> : null}
      {payments.isError ? <ErrorNotice error={payments.error} /> : null}
      {payments.data !== undefined && item === undefined ? (
        <Empty title="No such payment">It is not among the team's latest 1,000 payments.</Empty>
      ) : null}
      {item === undefined ? null : (
        <section className="card card-pad stack" aria-label="Payment">
          <Facts item={item} />
          {cancelable && team.may("payments.create") ? <CancelIntent team={team.team} item={item} /> : null}
        </section>
      )}
    </>
  )
}
