/**
 * An element of the payments query (SPEC §2.3): four objects, `recipient`, `payer`, `invoice` and `payment`,
 * with the spec's field names and types. Times are ISO 8601 UTC strings (DESIGN §5). Every field is always present:
 * a string or list the payment has nothing for is empty, and the three the spec gives no empty form (`reason_id`,
 * `subscription_fee_metadata`, `v1_metadata`) are `null` (docs/payments.md).
 */
import { Schema } from "effect"
import { PostalAddress } from "../PostalAddress.ts"
import { PaymentMachine } from "./PaymentMachine.ts"

const S = Schema.String

/** Who is paid. */
export const PaymentRecipient = Schema.Struct({
  nanoid: S,
  svcid: S,
  avatar: S,
  first_name: S,
  middle_name: S,
  last_name: S,
  company_name: S,
  email: S,
  address: PostalAddress
})
export type PaymentRecipient = typeof PaymentRecipient.Type

/** Who pays. */
export const PaymentPayer = Schema.Struct({ nanoid: S, svcid: S, avatar: S, name: S })
export type PaymentPayer = typeof PaymentPayer.Type

/** A time entry of an invoice. */
export const TimeEntry = Schema.Struct({ date: S, hours: Schema.Int, minutes: Schema.Int, notes: S })

/** Subscription fee details of an invoice. */
export const SubscriptionFeeMetadata = Schema.Struct({
  subscription_type: Schema.Int,
  fee_month_epoch: Schema.Int,
  recipients: Schema.Array(Schema.Struct({ address: S, amount: Schema.Int }))
})

/** The invoice behind a payment. */
export const PaymentInvoice = Schema.Struct({
  amount_cents: Schema.Int,
  documents_ids: Schema.Array(S),
  group_nanoid: S,
  group_onchain_id: S,
  hourly_rate_usd_cents: Schema.Int,
  invoice_number: S,
  /**
   * `draft` (SPEC §2.3's known value) for a synthesized invoice; a member's invoice is `submitted`, `partially_paid`,
   * `paid`, `canceled` or `rejected` (docs/invoices.md).
   */
  invoice_status: S,
  is_aor: Schema.Boolean,
  nanoid: S,
  payer_nanoid: S,
  recipient_nanoid: S,
  pay_intent_time: Schema.Int,
  svc_sow: Schema.Boolean,
  time_entries: Schema.Array(TimeEntry),
  created_at: S,
  updated_at: S,
  external_sow_url: S,
  invoice_description: S,
  payment_details: S,
  role_description: S,
  services_description: S,
  sow_document_nanoid: S,
  /** `null` when the payment was given no reason. */
  reason_id: Schema.NullOr(Schema.Int),
  /** `null` unless the payment is a subscription fee (none are made here yet). */
  subscription_fee_metadata: Schema.NullOr(SubscriptionFeeMetadata),
  /**
   * Ours (decision 0106): `false` for the invoice a member submitted and the payment pays (its number, status, lines
   * and dates are the invoice's); `true` for one made up from a payment made without an invoice (status `draft`).
   */
  synthesized: Schema.Boolean,
  currency: S,
  /** `flat` or `time_entry`. */
  type: S,
  /** `product` or `service`. */
  flat_type: S,
  due_date: Schema.NullOr(S)
})
export type PaymentInvoice = typeof PaymentInvoice.Type

/** The payment itself. `state` is ours (the real service shows it; the spec's filter needs it). */
export const PaymentDetails = Schema.Struct({
  creation_transaction: S,
  process_transaction: S,
  group_onchain_id: S,
  onchain_id: S,
  invoice_nanoid: S,
  nanoid: S,
  payment_group_nanoid: S,
  pay_at_time: Schema.Int,
  token_amount: S,
  amount_cents: Schema.Int,
  currency_symbol: S,
  token_decimals: Schema.Int,
  valid_minutes: Schema.Int,
  created_at: S,
  updated_at: S,
  /** `null` unless the payment was carried over from v1 (the migration tool keeps none yet). */
  v1_metadata: Schema.NullOr(S),
  state: Schema.optionalKey(PaymentMachine.State),
  /** The pay schedule (`ps-`) whose instalment this is, and the instalment (from 0); `null` for other payments. */
  pay_schedule_nanoid: Schema.NullOr(S),
  instalment: Schema.NullOr(Schema.Int)
})
export type PaymentDetails = typeof PaymentDetails.Type

/** One element of `data.items`. */
export const PaymentItem = Schema.Struct({
  recipient: PaymentRecipient,
  payer: PaymentPayer,
  invoice: PaymentInvoice,
  payment: PaymentDetails
})
export type PaymentItem = typeof PaymentItem.Type
