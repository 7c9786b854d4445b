/**
 * The typed data a wallet is about to sign, shown as a person can check it (issue 40): who signs, for which account,
 * on which chain and contract, until when, and each payment's recipient address and amount; the whole of it as JSON
 * text beneath. The client has already compared it with what was entered.
 */
import type { PreparedPayment } from "@svc/client"
import { formatCents } from "@svc/domain/payment"
import { DateTime } from "../ui/Format.tsx"

interface Entry {
  readonly recipient: string
  readonly amount: string
  readonly payType: string
  readonly payAtTime: string
}

const payTypes: Record<string, string> = { "1": "now", "2": "intent", "3": "escrow, claimed by e-mail" }

/** USDC's smallest units (6 decimals) as dollars: an amount signed as `12340000` pays $12.34. */
const dollarsOf = (amount: string) => formatCents(Number(BigInt(amount) / 10_000n))

export const TypedDataView = ({ prepared }: { readonly prepared: PreparedPayment }) => {
  const { domain, typed_data } = prepared.bundle
  const message = typed_data as { from: string; to: string; expires: string; data: unknown }
  const entries: ReadonlyArray<Entry> =
    prepared.kind === "instant"
      ? [message.data as Entry]
      : ((message.data as { payments: ReadonlyArray<Entry> }).payments ?? [])
  return (
    <section className="typed-data stack" aria-labelledby="typed-data-heading">
      <h2 id="typed-data-heading">What your wallet will sign</h2>
      <p className="small">
        Checked: {entries.length} {entries.length === 1 ? "payment" : "payments"} of exactly the amounts above,{" "}
        {formatCents(prepared.totalCents)} in all, signed by your wallet.
      </p>
      <dl className="facts small">
        <dt>Signed by</dt>
        <dd className="mono">{message.from}</dd>
        <dt>From the account</dt>
        <dd className="mono">{message.to}</dd>
        <dt>Contract</dt>
        <dd>
          {domain.name} {domain.version} on chain {domain.chainId},{" "}
          <span className="mono">{domain.verifyingContract}</span>
        </dd>
        <dt>Valid until</dt>
        <dd>
          <DateTime value={Number(message.expires)} />
        </dd>
        {entries.map((entry, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: entries are in the signed order and never move
          <div key={index} className="pair">
            <dt>Payment {index + 1}</dt>
            <dd>
              {dollarsOf(entry.amount)} to <span className="mono">{entry.recipient}</span> (
              {payTypes[entry.payType] ?? entry.payType})
            </dd>
          </div>
        ))}
      </dl>
      <details>
        <summary>The typed data, as sent to the wallet</summary>
        <pre className="mono small json">{JSON.stringify(prepared.bundle, null, 2)}</pre>
      </details>
    </section>
  )
}
