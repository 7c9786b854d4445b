/**
 * The events a webhook endpoint receives, typed for a receiver (docs/webhooks.md): the envelope of each payload major,
 * and each kind's payload, as plain values. `verifyWebhook<WebhookEvent>(...)` answers one.
 */
import type {
  CashRequirementEventPayload as DomainCashRequirementEventPayload,
  DuplicateAccountEventPayload as DomainDuplicateAccountEventPayload,
  InviteEventPayload as DomainInviteEventPayload,
  InvoiceEventPayload as DomainInvoiceEventPayload,
  MemberBlockedEventPayload as DomainMemberBlockedEventPayload,
  MemberEventPayload as DomainMemberEventPayload,
  PaymentEventPayload as DomainPaymentEventPayload,
  PaymentGroupEventPayload as DomainPaymentGroupEventPayload,
  SubscriptionEventPayload as DomainSubscriptionEventPayload,
  WebhookEndpointEventPayload as DomainWebhookEndpointEventPayload,
  WithdrawAccountEventPayload as DomainWithdrawAccountEventPayload,
  EventEnvelopeV1,
  EventEnvelopeV2,
  EventPayloadOf,
  EventType
} from "@svc/domain/event"
import type { Plain } from "./Plain.ts"

/** An event kind (SPEC §6): `payment.sent`, `invite.accepted`, ... */
export type WebhookEventType = EventType

/** `payment.sent`, `payment.failed`, `payment.canceled`: the payment; also each payment of a group. */
export type PaymentEventPayload = Plain<DomainPaymentEventPayload>
/** `payment.group.created`: the signed batch and its payments. */
export type PaymentGroupEventPayload = Plain<DomainPaymentGroupEventPayload>
/** `payment.subscription.created`, `.paid`, and `payment.canceled` of a pay schedule: the schedule. */
export type SubscriptionEventPayload = Plain<DomainSubscriptionEventPayload>
/** `payment.cash_requirement.created`, `.due`: the team's obligations against its balance. */
export type CashRequirementEventPayload = Plain<DomainCashRequirementEventPayload>
/** `invite.accepted`, `invite.rejected`, `invite.expired`: the invite. */
export type InviteEventPayload = Plain<DomainInviteEventPayload>
/** `invoice.created`, `invoice.canceled` (a rejection with its `reason`): the invoice. */
export type InvoiceEventPayload = Plain<DomainInvoiceEventPayload>
/** `team.member_added`, `team.member_removed`: the membership, and who it is. */
export type MemberEventPayload = Plain<DomainMemberEventPayload>
/** `team.member_blocked`: the membership, whether it is now blocked, since when, why and by whom. */
export type MemberBlockedEventPayload = Plain<DomainMemberBlockedEventPayload>
/** `withdraw_account.updated`: a member's payout address changed, or a change was reported and undone. */
export type WithdrawAccountEventPayload = Plain<DomainWithdrawAccountEventPayload>
/** `withdraw_account.duplicated_detected`: two users found sharing an address, the older first. */
export type DuplicateAccountEventPayload = Plain<DomainDuplicateAccountEventPayload>
/** `webhook.endpoint.disabled`: the endpoint the service stopped delivering to, and why. */
export type WebhookEndpointEventPayload = Plain<DomainWebhookEndpointEventPayload>

/** The payload of kind `K` (a JSON object for a kind without a shape of its own); a test delivery's has `test: true`. */
export type WebhookEventPayload<K extends WebhookEventType = WebhookEventType> = Plain<EventPayloadOf<K>> & {
  readonly test?: boolean
}

/**
 * A delivery of payload major 2, the default: the envelope, and the payload of its kind under `data`. Checking
 * `event_type` narrows `data`.
 *
 * @example
 * const event = verifyWebhook<WebhookEvent>({ secret, body, headers })
 * if (event.event_type === "payment.sent") console.log(event.data.amount_cents)
 */
export type WebhookEvent<K extends WebhookEventType = WebhookEventType> = K extends WebhookEventType
  ? Plain<Omit<EventEnvelopeV2, "event_type" | "data">> & {
      readonly event_type: K
      readonly data: WebhookEventPayload<K>
    }
  : never

/** A delivery of payload major 1, the earlier shape: no `id` or `data`, the payload under its resource's key. */
export type WebhookEventV1 = Plain<EventEnvelopeV1>
