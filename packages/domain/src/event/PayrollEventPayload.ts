/**
 * Payload shapes of the payroll events (issue 37): a pay schedule registered, paid or canceled
 * (`payment.subscription.created`, `payment.subscription.paid`, and `payment.canceled` of a schedule), and a team's
 * cash requirement (`payment.cash_requirement.created`, `payment.cash_requirement.due`).
 */
import { Schema } from "effect"
import { ChainFacts, TokenInfo } from "./EventFacts.ts"

/** One payee of a schedule as events show it. */
export const SubscriptionRecipient = Schema.Struct({
  nanoid: Schema.String,
  email: Schema.String,
  name: Schema.String,
  amount_cents: Schema.Int,
  /** The invoice each instalment pays part of, or `null`. */
  invoice_nanoid: Schema.NullOr(Schema.String)
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
  cancel_reason: Schema.NullOr(
    Schema.Literals(["team", "signer_removed", "signer_blocked", "payee_removed", "payee_blocked"])
  ),
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
