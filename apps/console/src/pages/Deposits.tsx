/**
 * Money that came in: USDC sent to the team's account, read from the chain (`deposit.received`), and transfers between
 * accounts svc knows (`token.transfer`), newest first, with their confirmations.
 */
import { useDeposits } from "../api/Queries.ts"
import type { Deposit } from "../api/Types.ts"
import type { PageProps } from "../navigation/Pages.ts"
import { Badge } from "../ui/Badge.tsx"
import { PageHeader } from "../ui/Controls.tsx"
import { DateTime, Hex, Money } from "../ui/Format.tsx"
import { Empty, ErrorNotice, Loading } from "../ui/Notice.tsx"

const stateTone = { confirmed: "good", pending: "moving", reorged: "bad" } as const

export const DepositRows = ({ items }: { readonly items: ReadonlyArray<Deposit> }) => (
  <table className="data">
    <thead>
      <tr>
        <th scope="col">Date</th>
        <th scope="col">From</th>
        <th scope="col">Kind</th>
        <th scope="col">State</th>
        <th scope="col">Transaction</th>
        <th scope="col" className="num">
          Amount
        </th>
      </tr>
    </thead>
    <tbody>
      {items.map((deposit) => (
        <tr key={deposit.deposit_nanoid}>
          <td data-label="Date">
            <DateTime value={deposit.created_at} />
          </td>
          <td data-label="From">
            <Hex value={deposit.from} />
          </td>
          <td data-label="Kind">{deposit.kind === "received" ? "Deposit" : "Transfer"}</td>
          <td data-label="State">
            <Badge tone={stateTone[deposit.state as keyof typeof stateTone] ?? "neutral"}>
              {deposit.state === "confirmed" ? `Confirmed (${deposit.confirmations})` : deposit.state}
            </Badge>
          </td>
          <td data-label="Transaction">
            <Hex value={deposit.transaction} />
          </td>
          <td data-label="Amount" className="num">
            <Money cents={deposit.amount_cents} />
          </td>
        </tr>
      ))}
    </tbody>
  </table>
)

export const DepositsPage = ({ team }: PageProps) => {
  const deposits = useDeposits(team.team)
  return (
    <>
      <PageHeader title="Deposits" description="USDC that reached the team's account, as the chain shows it." />
      <section className="card" aria-label="Deposits">
        {deposits.isPending ? <Loading what="deposits" /> : null}
        {deposits.isError ? <ErrorNotice error={deposits.error} /> : null}
        {deposits.data?.items.length === 0 ? (
          <Empty title="No deposits yet">Send USDC to the team's account (on the overview) and it shows here.</Empty>
        ) : null}
        {deposits.data === undefined || deposits.data.items.length === 0 ? null : (
          <DepositRows items={deposits.data.items} />
        )}
      </section>
    </>
  )
}
