/**
 * A team at a glance: its balance, the account to fund (address, QR code, copy), what needs attention (payments in
 * flight, failed webhook deliveries), and the latest payments and deposits. A payee sees their own membership.
 */
import { useQueries } from "@tanstack/react-query"
import { keys, usdCentsOf, useBalance, useDeposits, usePayments, useWebhooks } from "../api/Queries.ts"
import { type PageProps, pagePath } from "../navigation/Pages.ts"
import { Link, navigate } from "../navigation/Router.tsx"
import type { TeamContext } from "../navigation/Team.ts"
import { useClient } from "../session/Session.tsx"
import { Button, CopyButton, PageHeader } from "../ui/Controls.tsx"
import { Money, roleName } from "../ui/Format.tsx"
import { Empty, ErrorNotice, Loading } from "../ui/Notice.tsx"
import { QrCode } from "../ui/QrCode.tsx"
import { DepositRows } from "./Deposits.tsx"
import { MemberCard } from "./MemberCard.tsx"
import { PaymentRows } from "./PaymentRows.tsx"

const BalanceCards = ({ team }: { readonly team: string }) => {
  const balance = useBalance(team)
  return (
    <div className="grid grid-2">
      <section className="card card-pad" aria-labelledby="balance-heading">
        <h2 id="balance-heading" className="label">
          Balance
        </h2>
        {balance.isPending ? <Loading what="the balance" /> : null}
        {balance.isError ? <ErrorNotice error={balance.error} /> : null}
        {balance.data === undefined ? null : (
          <>
            <p className="figure" data-testid="balance">
              <Money cents={usdCentsOf(balance.data)} />
            </p>
            <p className="muted small">USDC on Arbitrum, held by the team's account</p>
          </>
        )}
      </section>
      <section className="card card-pad" aria-labelledby="fund-heading">
        <h2 id="fund-heading" className="label">
          Fund the account
        </h2>
        {balance.data === undefined ? null : (
          <div className="fund">
            <QrCode value={balance.data.svc_account_address} label="QR code of the team's account address" />
            <div className="stack">
              <p className="muted small">Send USDC on Arbitrum to the team's account:</p>
              <p className="mono wrap-anywhere">{balance.data.svc_account_address}</p>
              <div>
                <CopyButton value={balance.data.svc_account_address} label="Copy address" />
              </div>
            </div>
          </div>
        )}
      </section>
    </div>
  )
}

const useFailedDeliveries = (team: TeamContext) => {
  const client = useClient()
  const webhooks = useWebhooks(team.team, team.may("webhooks.manage"))
  const failed = useQueries({
    queries: (webhooks.data ?? []).map((endpoint) => ({
      queryKey: [...keys.deliveries(endpoint.webhook_nanoid), "failed"],
      queryFn: async () =>
        (
          await client.webhooks.deliveries({
            params: { webhook_nanoid: endpoint.webhook_nanoid },
            query: { status: "failed", limit: 50 }
          })
        ).data
    }))
  })
  return failed.reduce((sum, result) => sum + (result.data?.items.length ?? 0), 0)
}

const Attention = ({ team }: { readonly team: TeamContext }) => {
  const moving = usePayments(team.team, { state: "scheduled" }, 50)
  const failedDeliveries = useFailedDeliveries(team)
  const inFlight = moving.data?.items.filter((item) => item.payment.state === "processing").length ?? 0
  const items = [
    inFlight > 0 ? (
      <li key="flight">
        <Link to={`${pagePath(team.team, "payments")}?state=scheduled`}>
          {inFlight} {inFlight === 1 ? "payment" : "payments"} in flight
        </Link>{" "}
        <span className="muted">— settling on chain</span>
      </li>
    ) : null,
    failedDeliveries > 0 ? (
      <li key="deliveries">
        <Link to={pagePath(team.team, "webhooks")}>
          {failedDeliveries} failed webhook {failedDeliveries === 1 ? "delivery" : "deliveries"}
        </Link>{" "}
        <span className="muted">— retry them from the endpoint's log</span>
      </li>
    ) : null
  ].filter((item) => item !== null)
  return (
    <section className="card card-pad stack" aria-labelledby="attention-heading">
      <h2 id="attention-heading">Needs attention</h2>
      {items.length === 0 ? (
        <p className="muted">Nothing: every payment is settled and every delivery went through.</p>
      ) : (
        <ul className="steps">{items}</ul>
      )}
    </section>
  )
}

const Recent = ({ team }: { readonly team: TeamContext }) => {
  const payments = usePayments(team.team, {}, 5)
  const deposits = useDeposits(team.team)
  return (
    <div className="grid">
      <section className="card" aria-labelledby="recent-payments">
        <div className="card-head">
          <h2 id="recent-payments">Recent payments</h2>
          <Link to={pagePath(team.team, "payments")}>All payments</Link>
        </div>
        {payments.isPending ? <Loading what="payments" /> : null}
        {payments.isError ? <ErrorNotice error={payments.error} /> : null}
        {payments.data?.items.length === 0 ? <Empty title="No payments yet" /> : null}
        {payments.data === undefined || payments.data.items.length === 0 ? null : (
          <PaymentRows team={team.team} items={payments.data.items} />
        )}
      </section>
      <section className="card" aria-labelledby="recent-deposits">
        <div className="card-head">
          <h2 id="recent-deposits">Recent deposits</h2>
          <Link to={pagePath(team.team, "deposits")}>All deposits</Link>
        </div>
        {deposits.isError ? <ErrorNotice error={deposits.error} /> : null}
        {deposits.data?.items.length === 0 ? <Empty title="No deposits yet" /> : null}
        {deposits.data === undefined || deposits.data.items.length === 0 ? null : (
          <DepositRows items={deposits.data.items.slice(0, 5)} />
        )}
      </section>
    </div>
  )
}

export const OverviewPage = ({ team }: PageProps) => (
  <>
    <PageHeader
      title={team.name}
      description={`Overview · you are ${roleName(team.role).toLowerCase()} of this team`}
      actions={
        team.may("payments.create") ? (
          <Button variant="primary" onClick={() => navigate(pagePath(team.team, "payments", "new"))}>
            New payment
          </Button>
        ) : undefined
      }
    />
    <div className="grid">
      {team.may("balance.read") ? <BalanceCards team={team.team} /> : null}
      {team.may("payments.read") ? <Attention team={team} /> : null}
      {team.may("payments.read") ? <Recent team={team} /> : null}
      {team.me !== undefined && team.may("member.summary", true) && !team.may("payments.read") ? (
        <MemberCard team={team} user={team.me} />
      ) : null}
    </div>
  </>
)
