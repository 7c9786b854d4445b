/**
 * The review before the wallet signs (issue 40): what is paid to whom, the total against the balance, and the typed
 * data itself, which the client has checked is exactly what was entered (the command line's rule). Then "Sign and
 * pay", and the payments settling, watched live.
 */
import type { PaymentResult, PreparedPayment } from "@svc/client"
import { useMutation, useQueryClient } from "@tanstack/react-query"
import type { ReactNode } from "react"
import { keys, usdCentsOf, useBalance, usePayments } from "../api/Queries.ts"
import type { TeamUser } from "../api/Types.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, PageHeader } from "../ui/Controls.tsx"
import { Hex, Money, nameOf } from "../ui/Format.tsx"
import { ErrorNotice, Notice } from "../ui/Notice.tsx"
import { PaymentRows } from "./PaymentRows.tsx"
import { TypedDataView } from "./TypedDataView.tsx"

const Payees = ({
  prepared,
  members
}: {
  readonly prepared: PreparedPayment
  readonly members: ReadonlyArray<TeamUser>
}) => (
  <table className="data">
    <thead>
      <tr>
        <th scope="col">Recipient</th>
        <th scope="col">Description</th>
        <th scope="col" className="num">
          Amount
        </th>
      </tr>
    </thead>
    <tbody>
      {prepared.payees.map((payee, index) => {
        const member = members.find((candidate) => candidate.nanoid === payee.to)
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: the same member may be paid twice in one batch
          <tr key={index}>
            <td data-label="Recipient" className="primary">
              {member === undefined ? payee.to : nameOf(member)}
              {member === undefined || member.email === "" ? null : <span className="sub">{member.email}</span>}
            </td>
            <td data-label="Description" className="wrap-anywhere">
              {payee.invoice_description}
            </td>
            <td data-label="Amount" className="num">
              <Money cents={payee.amount_cents} />
            </td>
          </tr>
        )
      })}
    </tbody>
  </table>
)

const Totals = ({ total, balance }: { readonly total: number; readonly balance: number | undefined }) => (
  <div className="totals">
    <div className="grand">
      <span>Total</span>
      <Money cents={total} />
    </div>
    {balance === undefined ? null : (
      <>
        <div>
          <span className="muted">Balance now</span>
          <Money cents={balance} />
        </div>
        <div>
          <span className="muted">Balance after</span>
          <Money cents={balance - total} />
        </div>
      </>
    )}
  </div>
)

export const PaymentReview = ({
  team,
  members,
  prepared,
  crumb,
  onBack,
  onPaid
}: {
  readonly team: TeamContext
  readonly members: ReadonlyArray<TeamUser>
  readonly prepared: PreparedPayment
  readonly crumb: ReactNode
  readonly onBack: () => void
  readonly onPaid: (result: PaymentResult) => void
}) => {
  const client = useClient()
  const queryClient = useQueryClient()
  const balance = useBalance(team.team)
  const cents = balance.data === undefined ? undefined : usdCentsOf(balance.data)
  const short = cents !== undefined && prepared.totalCents > cents
  const pay = useMutation({
    mutationFn: () => client.payments.submit(prepared),
    onSuccess: onPaid,
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: keys.payments(team.team) })
      await queryClient.invalidateQueries({ queryKey: keys.balance(team.team) })
    }
  })
  const later = !prepared.execution.pay_now
  return (
    <>
      <PageHeader
        crumb={crumb}
        title="Review the payment"
        description="Nothing is signed until you press Sign and pay and approve it in your wallet."
      />
      <div className="grid">
        <section className="card" aria-label="What is paid">
          <Payees prepared={prepared} members={members} />
          <div className="card-pad">
            <Totals total={prepared.totalCents} balance={cents} />
          </div>
        </section>
        {short ? (
          <ErrorNotice error={new Error("The team's balance does not cover this payment: fund the account first.")} />
        ) : null}
        <TypedDataView prepared={prepared} />
        {pay.isError ? <ErrorNotice error={pay.error} title="Not paid" /> : null}
        {pay.isPending ? (
          <Notice tone="info">Approve the signature in your wallet; the payment is then sent to the chain…</Notice>
        ) : null}
        <div className="actions">
          <Button onClick={onBack} disabled={pay.isPending}>
            Back
          </Button>
          <Button variant="primary" busy={pay.isPending} disabled={short} onClick={() => pay.mutate()}>
            Sign and pay
          </Button>
          {later ? <span className="muted small">Registered now, paid at its date by the service.</span> : null}
        </div>
      </div>
    </>
  )
}

/** After the wallet signed: the transaction, and the batch's payments as they settle. */
export const PaymentDone = ({
  team,
  prepared,
  result,
  crumb
}: {
  readonly team: TeamContext
  readonly prepared: PreparedPayment
  readonly result: PaymentResult
  readonly crumb: ReactNode
}) => {
  const latest = usePayments(team.team, {}, Math.max(1, prepared.execution.to.length))
  const settled = latest.data?.items.every((item) => item.payment.state !== "processing") ?? false
  return (
    <>
      <PageHeader crumb={crumb} title={prepared.execution.pay_now ? "Payment sent" : "Payment scheduled"} />
      <div className="grid">
        <Notice tone={settled ? "success" : "info"}>
          <strong>
            <Money cents={prepared.totalCents} />{" "}
            {prepared.execution.pay_now ? (settled ? "paid" : "on its way") : "registered"}
          </strong>
          <span>
            Transaction <Hex value={result.transaction} />
            {settled ? "" : " — the state below changes once the chain confirms it."}
          </span>
        </Notice>
        <section className="card" aria-label="This payment">
          {latest.data === undefined ? null : <PaymentRows team={team.team} items={latest.data.items} />}
        </section>
        <div className="actions">
          <Link className="button" to={pagePath(team.team, "payments")}>
            All payments
          </Link>
        </div>
      </div>
    </>
  )
}
