/**
 * What the service keeps of payments it issued typed data for (POST /v2/payments and the instant form), besides the
 * bundle: the ids it chose, the invoices and what PUT /v2/payments must repeat. Execution records the payments from
 * it, so nothing is decided twice.
 */

import type { Email } from "../Email.ts"
import type { Address } from "../Evm.ts"
import type { InvoiceId, PaymentGroupId, PaymentId, TeamId, UserId } from "../Ids.ts"
import type { InvoiceDetails } from "./Payment.ts"
import type { PaymentRecipientRequest } from "./PaymentRequests.ts"

/** One payment of an issued request: its ids, recipient (a member or an e-mail), amount and invoice. */
export interface RequestedPayment {
  readonly nanoid: PaymentId
  readonly invoice_nanoid: InvoiceId
  readonly recipient_nanoid?: UserId
  readonly recipient_email?: Email
  readonly amount_cents: number
  readonly invoice: InvoiceDetails
}

/** An issued request for payments, as `IssuedTypedData.request` holds it. */
export interface IssuedPaymentsRequest {
  /** The fields PUT /v2/payments must repeat: `from`, `to` entry for entry, `pay_now`. */
  readonly body: {
    readonly from: TeamId
    readonly to: ReadonlyArray<PaymentRecipientRequest>
    readonly pay_now: boolean
  }
  readonly group_nanoid: PaymentGroupId
  /** The team's svc account the payments leave from. */
  readonly account: Address
  /** The payments, in the order of the signed entries. */
  readonly payments: ReadonlyArray<RequestedPayment>
}
