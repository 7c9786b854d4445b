/** The payments table: date, who is paid, what for, its state and the amount; each row opens the payment. */
import type { PaymentItem } from "../api/Types.ts"
import { pagePath } from "../navigation/Pages.ts"
import { Link } from "../navigation/Router.tsx"
import { PaymentStateBadge } from "../ui/Badge.tsx"
import { DateTime, Money, nameOf } from "../ui/Format.tsx"

/** Who a payment pays, as a person reads it. */
export const recipientOf = (item: PaymentItem) => nameOf(item.recipient)

export const PaymentRows = ({ team, items }: { readonly team: string; readonly items: ReadonlyArray<PaymentItem> }) => (
  <table className="data">
    <thead>
      <tr>
        <th scope="col">Date</th>
        <th scope="col">Recipient</th>
        <th scope="col">Description</th>
        <th scope="col">State</th>
        <th scope="col" className="num">
          Amount
        </th>
      </tr>
    </thead>
    <tbody>
      {items.map((item) => (
        <tr key={item.payment.nanoid}>
          <td data-label="Date">
            <Link to={pagePath(team, "payments", item.payment.nanoid)}>
              <DateTime value={item.payment.created_at} />
            </Link>
          </td>
          <td data-label="Recipient" className="primary">
            {recipientOf(item)}
            {item.recipient.email === "" || recipientOf(item) === item.recipient.email ? null : (
              <span className="sub">{item.recipient.email}</span>
            )}
          </td>
          <td data-label="Description" className="wrap-anywhere">
            {item.invoice.invoice_description || <span className="muted">—</span>}
          </td>
          <td data-label="State">
            <PaymentStateBadge state={item.payment.state} />
          </td>
          <td data-label="Amount" className="num">
            <Money cents={item.payment.amount_cents} />
          </td>
        </tr>
      ))}
    </tbody>
  </table>
)
