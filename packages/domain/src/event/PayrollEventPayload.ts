/**
 * Payload shapes of the payroll events (issue 37): a pay schedule registered, paid or canceled
 * (`payment.subscription.created`, `payment.subscription.paid`, and `payment.canceled` of a schedule), and a team's
 * cash requirement (`payment.cash_requirement.created`, `payment.cash_requirement.due`).
 */
import { Schema } from "effect"
import { ChainFacts, TokenInfo } from "./EventPayload.ts"

/** One payee of a schedule as events show it. */
export const SubscriptionRecipient = Schema.Struct({
  nanoid: Schema.String,
  email: Schema.String,
  name: Schema.String,
  amount_cents: Schema.Int
})

/** The instalment an event is about: its index (from 0), due time, and the payments it made. */
export const SubscriptionInstalment = Schema.Struct({
  n: Schema.Int,
  due_at: Schema.String,
  amount_cents: Schema.Int,
  payments: Schema.Array(Schema.String)
})

/**
 * `subscription` of `payment.subscription.created` and `.paid`, and `payment` of `payment.canceled` for a schedule
 * (`object: "pay_schedule"` tells it from a payment).
 */
export const SubscriptionEventPayload = Schema.Struct({
  object: Schema.Literal("pay_schedule"),
  nanoid: Schema.String,
  team_nanoid: Schema.String,
  onchain_id: Schema.String,
  state: Schema.Literals(["active", "completed", "canceled"]),
  interval: Schema.Literals(["weekly", "biweekly", "monthly"]),
  first_pay_at: Schema.String,
  count: Schema.Int,
  paid_count: Schema.Int,
  remaining_count: Schema.Int,
  next_pay_at: Schema.NullOr(Schema.String),
  amount_cents: Schema.Int,
  currency: Schema.Literal("USD"),
  token: TokenInfo,
  recipients: Schema.Array(SubscriptionRecipient),
  signer: Schema.Struct({ nanoid: Schema.String, wallet: Schema.String }),
  /** The instalment paid (`.paid`); `null` otherwise. */
  instalment: Schema.NullOr(SubscriptionInstalment),
  /** Why it was canceled (`payment.canceled`); `null` otherwise. */
  cancel_reason: Schema.NullOr(Schema.Literals(["team", "signer_removed", "payee_removed", "payee_blocked"])),
  chain: Schema.NullOr(ChainFacts)
})
export type SubscriptionEventPayload = typeof SubscriptionEventPayload.Type

/** One obligation of a cash requirement: an intent, or an instalment of a schedule. */
export const CashObligation = Schema.Struct({
  kind: Schema.Literals(["intent", "instalment"]),
  /** The payment (`pa-`) of an intent, the schedule (`ps-`) of an instalment. */
  nanoid: Schema.String,
  /** The instalment's index; `null` for an intent. */
  instalment: Schema.NullOr(Schema.Int),
  due_at: Schema.String,
  amount_cents: Schema.Int
})
export type CashObligation = typeof CashObligation.Type

/** `cash_requirement` of `payment.cash_requirement.created` and `.due`: what is owed against what is held. */
export const CashRequirementEventPayload = Schema.Struct({
  team_nanoid: Schema.String,
  currency: Schema.Literal("USD"),
  balance_cents: Schema.Int,
  obligations_cents: Schema.Int,
  shortfall_cents: Schema.Int,
  /** The first due time the balance cannot meet. */
  first_unmet_at: Schema.String,
  horizon_days: Schema.Int,
  /** The obligations behind it, by due time (for `.due`, the one that came due). */
  obligations: Schema.Array(CashObligation)
})
export type CashRequirementEventPayload = typeof CashRequirementEventPayload.Type

const sampleTime = "2026-01-15T10:30:00.000Z"

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
  recipients: [{ nanoid: "us-sample000001", email: "ada@example.com", name: "Ada Lovelace", amount_cents: 500_000 }],
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
