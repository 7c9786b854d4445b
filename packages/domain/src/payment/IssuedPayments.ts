/**
 * What the service keeps of payments it issued typed data for (POST /v2/payments and the instant form), besides the
 * bundle: the ids it chose, the invoices and what PUT /v2/payments must repeat. Execution records the payments from
 * it, so nothing is decided twice. `IssuedTypedDataRecord` is the schema of a whole issued record, as the stores
 * decode it at their edge.
 */

import { Schema } from "effect"
import { Email } from "../Email.ts"
import { Address, Uint256String } from "../Evm.ts"
import {
  PaymentsTypedDataBundle,
  PaymentTypedDataBundle,
  RolesTypedDataBundle,
  ScheduleInterval,
  ScheduleTypedDataBundle
} from "../eip712/TypedData.ts"
import { InviteId, InvoiceId, PaymentGroupId, PaymentId, PayScheduleId, TeamId, UserId } from "../Ids.ts"
import { SchedulePayee } from "../schedule/PaySchedule.ts"
import { InvoiceDetails } from "./Payment.ts"
import { type ExecutePaymentsRequest, isInvoiceEntry, PaymentEntryRequest } from "./PaymentRequests.ts"

/** One payment of an issued request: its ids, recipient (a member or an e-mail), amount and invoice. */
export const RequestedPayment = Schema.Struct({
  nanoid: PaymentId,
  invoice_nanoid: InvoiceId,
  /** It pays the member's invoice `invoice_nanoid` (a `{invoice_nanoid}` entry); absent: a synthesized invoice. */
  pays_invoice: Schema.optionalKey(Schema.Literal(true)),
  recipient_nanoid: Schema.optionalKey(UserId),
  recipient_email: Schema.optionalKey(Email),
  amount_cents: Schema.Number,
  invoice: InvoiceDetails
})
export type RequestedPayment = typeof RequestedPayment.Type

/** An issued request for payments, as `IssuedTypedData.request` holds it. */
export const IssuedPaymentsRequest = Schema.Struct({
  /** The fields PUT /v2/payments must repeat: `from`, `to` entry for entry, `pay_now`. */
  body: Schema.Struct({ from: TeamId, to: Schema.Array(PaymentEntryRequest), pay_now: Schema.Boolean }),
  group_nanoid: PaymentGroupId,
  /** The team's svc account the payments leave from. */
  account: Address,
  /** The payments, in the order of the signed entries. */
  payments: Schema.Array(RequestedPayment)
})
export type IssuedPaymentsRequest = typeof IssuedPaymentsRequest.Type

/** An issued pay schedule (POST /v2/pay_schedules): what its execution records, besides the chain's facts. */
export const IssuedScheduleRequest = Schema.Struct({
  schedule: PayScheduleId,
  /** The team's svc account it pays from. */
  account: Address,
  interval: ScheduleInterval,
  first_pay_at: Schema.Int,
  count: Schema.Int,
  valid_minutes: Schema.Int,
  token: Address,
  token_decimals: Schema.Int,
  payees: Schema.Array(SchedulePayee)
})
export type IssuedScheduleRequest = typeof IssuedScheduleRequest.Type

const issuedRecord = {
  salt: Uint256String,
  team: TeamId,
  issuedTo: UserId,
  signer: Address,
  claimedAt: Schema.optionalKey(Schema.Number)
}

/** An issued record (`IssuedTypedData`) as the stores keep it: what they decode it with when they read it. */
export const IssuedTypedDataRecord = Schema.Union([
  Schema.Struct({
    ...issuedRecord,
    kind: Schema.Literal("batch"),
    bundle: PaymentsTypedDataBundle,
    request: IssuedPaymentsRequest
  }),
  Schema.Struct({
    ...issuedRecord,
    kind: Schema.Literal("instant"),
    bundle: PaymentTypedDataBundle,
    request: IssuedPaymentsRequest
  }),
  Schema.Struct({
    ...issuedRecord,
    kind: Schema.Literal("roles"),
    bundle: RolesTypedDataBundle,
    request: Schema.Struct({ invites: Schema.Array(InviteId) })
  }),
  Schema.Struct({
    ...issuedRecord,
    kind: Schema.Literal("schedule"),
    bundle: ScheduleTypedDataBundle,
    request: IssuedScheduleRequest
  })
])

/** Two entries alike: the same member, amount, currency and description, or the same invoice and part of it. */
export const sameEntry = (entry: PaymentEntryRequest, other: PaymentEntryRequest | undefined) =>
  other !== undefined &&
  (isInvoiceEntry(entry) || isInvoiceEntry(other)
    ? isInvoiceEntry(entry) &&
      isInvoiceEntry(other) &&
      entry.invoice_nanoid === other.invoice_nanoid &&
      entry.amount_cents === other.amount_cents &&
      (entry.currency_symbol ?? "USD") === (other.currency_symbol ?? "USD")
    : entry.to === other.to &&
      entry.amount_cents === other.amount_cents &&
      entry.currency_symbol === other.currency_symbol &&
      entry.invoice_description === other.invoice_description)

/** The PUT body repeats what POST was asked: `from`, `to` entry for entry, `pay_now` (values in normal form). */
export const sameBody = (issued: IssuedPaymentsRequest["body"], body: ExecutePaymentsRequest) =>
  issued.from === body.from &&
  issued.pay_now === body.pay_now &&
  issued.to.length === body.to.length &&
  issued.to.every((entry, index) => sameEntry(entry, body.to[index]))
