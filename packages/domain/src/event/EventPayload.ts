/**
 * Payload shapes of the events the service emits (the real service's shapes, DESIGN §5), and a sample payload
 * for every kind, which test deliveries (POST /v2/webhooks/test) send.
 */
import { Schema } from "effect"
import type { Payment } from "../payment/Payment.ts"
import {
  type DepositEventPayload,
  sampleDepositPayloadOf,
  type TokenTransferEventPayload
} from "./DepositEventPayload.ts"
import { type EventType, eventTypes } from "./EventCatalog.ts"
import type { EventData } from "./EventEnvelope.ts"
import { ChainFacts, TokenInfo } from "./EventFacts.ts"
import {
  type DuplicateAccountEventPayload,
  type MemberBlockedEventPayload,
  type MemberEventPayload,
  sampleMemberPayloadOf,
  type WithdrawAccountEventPayload
} from "./MemberEventPayload.ts"
import type { CashRequirementEventPayload, SubscriptionEventPayload } from "./PayrollEventPayload.ts"

export { DepositEventPayload, TokenTransferEventPayload } from "./DepositEventPayload.ts"
export { ChainFacts, TokenInfo } from "./EventFacts.ts"

export {
  DuplicateAccountEventPayload,
  MemberBlockedEventPayload,
  MemberEventPayload,
  WithdrawAccountEventPayload
} from "./MemberEventPayload.ts"

/** A payment's recipient as events show it. */
export const EventRecipient = Schema.Struct({
  nanoid: Schema.String,
  email: Schema.String,
  name: Schema.String,
  entity_type: Schema.Literals(["user", "company", "email"])
})
export type EventRecipient = typeof EventRecipient.Type

/** `payment` of `payment.sent`, `payment.failed`, `payment.canceled`, and each payment of a group. */
export const PaymentEventPayload = Schema.Struct({
  nanoid: Schema.String,
  onchain_id: Schema.String,
  group_onchain_id: Schema.String,
  invoice_nanoid: Schema.String,
  creation_transaction: Schema.NullOr(Schema.String),
  process_transaction: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String,
  pay_at_time: Schema.String,
  pay_type: Schema.String,
  state: Schema.String,
  token: TokenInfo,
  recipients: Schema.Array(EventRecipient),
  amount: Schema.String,
  amount_cents: Schema.Int,
  /** The chain facts of the transaction that moved it last (`null` until one has). */
  chain: Schema.NullOr(ChainFacts)
})
export type PaymentEventPayload = typeof PaymentEventPayload.Type

/** `payment_group` of `payment.group.created`. */
export const PaymentGroupEventPayload = Schema.Struct({
  nanoid: Schema.String,
  onchain_id: Schema.String,
  created_at: Schema.String,
  updated_at: Schema.String,
  invoice_type: Schema.String,
  invoice_description: Schema.String,
  role_description: Schema.String,
  currency: Schema.String,
  chain: Schema.NullOr(ChainFacts),
  payments: Schema.Array(PaymentEventPayload)
})
export type PaymentGroupEventPayload = typeof PaymentGroupEventPayload.Type

/** `invite` of `invite.accepted`, `invite.rejected`, `invite.expired`. */
export const InviteEventPayload = Schema.Struct({
  nanoid: Schema.String,
  user_nanoid: Schema.NullOr(Schema.String),
  email: Schema.String,
  role: Schema.String,
  status: Schema.Literals(["accepted", "rejected", "expired"]),
  anonymous: Schema.Boolean,
  invited_by: Schema.String,
  invited_to: Schema.String
})
export type InviteEventPayload = typeof InviteEventPayload.Type

/** `webhook` of `webhook.endpoint.disabled` (beyond the spec): the endpoint, and why it was disabled. */
export const WebhookEndpointEventPayload = Schema.Struct({
  nanoid: Schema.String,
  name: Schema.String,
  url: Schema.String,
  /** `gone`: it answered 410; `failing`: every delivery failed for 5 days. */
  reason: Schema.Literals(["gone", "failing"]),
  failing_since: Schema.NullOr(Schema.String),
  disabled_at: Schema.String
})
export type WebhookEndpointEventPayload = typeof WebhookEndpointEventPayload.Type

/** `invoice` of `invoice.created` and `invoice.canceled` (a rejection is `invoice.canceled` with its reason). */
export const InvoiceEventPayload = Schema.Struct({
  nanoid: Schema.String,
  team_nanoid: Schema.String,
  /** The member who billed the team. */
  recipient_nanoid: Schema.String,
  invoice_number: Schema.String,
  type: Schema.Literals(["flat", "time_entry"]),
  amount_cents: Schema.Int,
  currency: Schema.String,
  invoice_description: Schema.String,
  /** `canceled` by its author, or `rejected` by the team. */
  status: Schema.Literals(["submitted", "canceled", "rejected"]),
  /** Why the team rejected it; `null` unless rejected. */
  reason: Schema.NullOr(Schema.String),
  due_date: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type InvoiceEventPayload = typeof InvoiceEventPayload.Type

/** The event payload of a payment, given what the event shows of its recipient and token. */
export const paymentEventPayloadOf = (
  payment: Payment,
  recipient: EventRecipient,
  token: Omit<TokenInfo, "address">,
  chain: ChainFacts | null = null
): PaymentEventPayload => ({
  nanoid: payment.nanoid,
  onchain_id: payment.onchain_id,
  group_onchain_id: payment.group_onchain_id,
  invoice_nanoid: payment.invoice_nanoid,
  creation_transaction: payment.creation_transaction ?? null,
  process_transaction: payment.process_transaction ?? null,
  created_at: payment.created_at,
  updated_at: payment.updated_at,
  pay_at_time: String(payment.pay_at_time),
  pay_type: payment.pay_type,
  state: payment.state,
  token: { address: payment.token, ...token },
  recipients: [recipient],
  amount: payment.token_amount,
  amount_cents: payment.amount_cents,
  chain
})

const sampleTime = "2026-01-15T10:30:00.000Z"
const samplePayment: PaymentEventPayload = {
  nanoid: "pa-sample000001",
  onchain_id: `0x${"11".repeat(32)}`,
  group_onchain_id: `0x${"22".repeat(32)}`,
  invoice_nanoid: "iv-sample000001",
  creation_transaction: `0x${"33".repeat(32)}`,
  process_transaction: `0x${"44".repeat(32)}`,
  created_at: sampleTime,
  updated_at: sampleTime,
  pay_at_time: "0",
  pay_type: "1",
  state: "complete",
  token: { address: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", name: "USD Coin", symbol: "USDC", decimals: 6 },
  recipients: [{ nanoid: "us-sample000001", email: "ada@example.com", name: "Ada Lovelace", entity_type: "user" }],
  amount: "25000000",
  amount_cents: 2500,
  chain: { network: "arbitrum", chain_id: 42161, transaction_hash: `0x${"44".repeat(32)}`, block_number: 123456789 }
}

/** A sample `subscription` payload (test deliveries). */
export const sampleSubscription = (paid: boolean): SubscriptionEventPayload => ({
  object: "pay_schedule",
  nanoid: "ps-sample000001",
  team_nanoid: "te-sample000001",
  onchain_id: `0x${"55".repeat(32)}`,
  state: "active",
  interval: "weekly",
  first_pay_at: sampleTime,
  count: 3,
  paid_count: paid ? 1 : 0,
  remaining_count: paid ? 2 : 3,
  next_pay_at: paid ? "2026-01-22T10:30:00.000Z" : sampleTime,
  amount_cents: 500_000,
  currency: "USD",
  token: { address: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", name: "USD Coin", symbol: "USDC", decimals: 6 },
  recipients: [
    {
      nanoid: "us-sample000001",
      email: "ada@example.com",
      name: "Ada Lovelace",
      amount_cents: 500_000,
      invoice_nanoid: null
    }
  ],
  signer: { nanoid: "us-sample000002", wallet: "0x1111111111111111111111111111111111111111" },
  instalment: paid ? { n: 0, due_at: sampleTime, amount_cents: 500_000, payments: ["pa-sample000001"] } : null,
  cancel_reason: null,
  chain: { network: "arbitrum", chain_id: 42161, transaction_hash: `0x${"66".repeat(32)}`, block_number: 123456789 }
})

/** A sample `cash_requirement` payload (test deliveries). */
export const sampleCashRequirement = (): CashRequirementEventPayload => ({
  team_nanoid: "te-sample000001",
  currency: "USD",
  balance_cents: 300_000,
  obligations_cents: 500_000,
  shortfall_cents: 200_000,
  first_unmet_at: sampleTime,
  horizon_days: 14,
  obligations: [
    { kind: "instalment", nanoid: "ps-sample000001", instalment: 0, due_at: sampleTime, amount_cents: 500_000 }
  ]
})

const samples: Record<string, (type: EventType) => EventData> = {
  payment: (type) => ({
    ...samplePayment,
    state: type === "payment.failed" ? "failed" : type === "payment.canceled" ? "canceled" : "complete"
  }),
  payment_group: () => ({
    nanoid: "pg-sample000001",
    onchain_id: samplePayment.group_onchain_id,
    created_at: sampleTime,
    updated_at: sampleTime,
    invoice_type: "batch",
    invoice_description: "Sample batch",
    role_description: "",
    currency: "USD",
    chain: samplePayment.chain,
    payments: [samplePayment]
  }),
  invite: (type) => ({
    nanoid: "in-sample000001",
    user_nanoid: type === "invite.accepted" ? "us-sample000001" : null,
    email: "ada@example.com",
    role: "team_employee",
    status: type.slice("invite.".length),
    anonymous: false,
    invited_by: "us-sample000002",
    invited_to: "te-sample000001"
  }),
  webhook: () => ({
    nanoid: "wh-sample000001",
    name: "ops",
    url: "https://example.com/webhooks",
    reason: "failing",
    failing_since: "2026-01-10T10:30:00.000Z",
    disabled_at: sampleTime
  }),
  invoice: (type) => ({
    nanoid: "iv-sample000001",
    team_nanoid: "te-sample000001",
    recipient_nanoid: "us-sample000001",
    invoice_number: "2026-014",
    type: "time_entry",
    amount_cents: 120_000,
    currency: "USD",
    invoice_description: "Backend work, first half of January",
    status: type === "invoice.canceled" ? "canceled" : "submitted",
    reason: null,
    due_date: "2026-01-31",
    created_at: sampleTime,
    updated_at: sampleTime
  })
}

/** A plausible payload for any event kind, marked as a test; the shapes above where the service defines one. */
export const samplePayloadOf = (type: EventType): EventData => {
  if (type === "payment.subscription.created" || type === "payment.subscription.paid") {
    return { ...sampleSubscription(type === "payment.subscription.paid"), test: true }
  }
  if (type.startsWith("payment.cash_requirement.")) return { ...sampleCashRequirement(), test: true }
  const own = sampleMemberPayloadOf(type) ?? sampleDepositPayloadOf(type)
  if (own !== undefined) return { ...own, test: true }
  const key =
    type === "payment.group.created"
      ? "payment_group"
      : ["payment.sent", "payment.failed", "payment.canceled"].includes(type)
        ? "payment"
        : type.startsWith("invite.")
          ? "invite"
          : type === "webhook.endpoint.disabled"
            ? "webhook"
            : type.startsWith("invoice.")
              ? "invoice"
              : undefined
  const data =
    key === undefined ? { nanoid: `sample-${type.replace(/\W/g, "-")}`, created_at: sampleTime } : samples[key]?.(type)
  return { ...data, test: true }
}

/** Every kind with its sample payload (for documentation and contract tests). */
export const samplePayloads = (): ReadonlyArray<readonly [EventType, EventData]> =>
  eventTypes.map((type) => [type, samplePayloadOf(type)] as const)

/**
 * The payload (`data`, or major 1's resource key) of each kind emitted with a shape of its own above; a kind not
 * listed carries an `EventData` object. A test delivery's payload is the kind's sample, with `test: true` added.
 */
export interface EventPayloads {
  readonly "payment.group.created": PaymentGroupEventPayload
  readonly "payment.sent": PaymentEventPayload
  readonly "payment.failed": PaymentEventPayload
  /** A payment, or a pay schedule (`object: "pay_schedule"`) when a schedule was canceled. */
  readonly "payment.canceled": PaymentEventPayload | SubscriptionEventPayload
  readonly "payment.subscription.created": SubscriptionEventPayload
  readonly "payment.subscription.paid": SubscriptionEventPayload
  readonly "payment.cash_requirement.created": CashRequirementEventPayload
  readonly "payment.cash_requirement.due": CashRequirementEventPayload
  readonly "deposit.received": DepositEventPayload
  readonly "token.transfer": TokenTransferEventPayload
  readonly "invite.accepted": InviteEventPayload
  readonly "invite.rejected": InviteEventPayload
  readonly "invite.expired": InviteEventPayload
  readonly "team.member_added": MemberEventPayload
  readonly "team.member_removed": MemberEventPayload
  readonly "invoice.created": InvoiceEventPayload
  readonly "invoice.canceled": InvoiceEventPayload
  readonly "team.member_blocked": MemberBlockedEventPayload
  readonly "withdraw_account.updated": WithdrawAccountEventPayload
  readonly "withdraw_account.duplicated_detected": DuplicateAccountEventPayload
  readonly "webhook.endpoint.disabled": WebhookEndpointEventPayload
}

/** The payload of kind `K`: its shape in `EventPayloads`, else a JSON object. */
export type EventPayloadOf<K extends EventType> = K extends keyof EventPayloads ? EventPayloads[K] : EventData
