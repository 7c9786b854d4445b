/**
 * The event kinds a webhook endpoint can subscribe to (SPEC §6), each with its category and, for payload major 1,
 * the key its payload travels under.
 */
import { Schema } from "effect"

/** Event kind -> category and the payload key of major 1. Sorted as SPEC §6 lists them. */
export const EventCatalog = {
  "payment.sent": { category: "payments", payloadKey: "payment" },
  "payment.group.created": { category: "payments", payloadKey: "payment_group" },
  "payment.canceled": { category: "payments", payloadKey: "payment" },
  "payment.failed": { category: "payments", payloadKey: "payment" },
  "payment.subscription.created": { category: "payments", payloadKey: "subscription" },
  "payment.subscription.paid": { category: "payments", payloadKey: "subscription" },
  "payment.chargeback.created": { category: "payments", payloadKey: "chargeback" },
  "payment.chargeback.paid": { category: "payments", payloadKey: "chargeback" },
  "payment.cash_requirement.created": { category: "payments", payloadKey: "cash_requirement" },
  "payment.cash_requirement.due": { category: "payments", payloadKey: "cash_requirement" },
  "deposit.received": { category: "deposits", payloadKey: "deposit" },
  "deposit.crypto": { category: "deposits", payloadKey: "deposit" },
  "deposit.crosschain": { category: "deposits", payloadKey: "deposit" },
  "deposit.bitcoin": { category: "deposits", payloadKey: "deposit" },
  "deposit.fiat": { category: "deposits", payloadKey: "deposit" },
  "token.transfer": { category: "deposits", payloadKey: "transfer" },
  "swap.token": { category: "deposits", payloadKey: "swap" },
  "withdraw_account.duplicated_detected": { category: "deposits", payloadKey: "withdraw_account" },
  "invite.accepted": { category: "invites", payloadKey: "invite" },
  "invite.expired": { category: "invites", payloadKey: "invite" },
  "invite.rejected": { category: "invites", payloadKey: "invite" },
  "onboarding.step_updated.basic_data": { category: "onboarding", payloadKey: "onboarding" },
  "onboarding.step_updated.kyc.accepted": { category: "onboarding", payloadKey: "onboarding" },
  "onboarding.step_updated.kyc.rejected": { category: "onboarding", payloadKey: "onboarding" },
  "onboarding.step_updated.kyc.pending": { category: "onboarding", payloadKey: "onboarding" },
  "onboarding.step_updated.rsk": { category: "onboarding", payloadKey: "onboarding" },
  "onboarding.step_updated.documents": { category: "onboarding", payloadKey: "onboarding" },
  "onboarding.completed": { category: "onboarding", payloadKey: "onboarding" },
  "team.member_blocked": { category: "team", payloadKey: "member" },
  "team.member_added": { category: "team", payloadKey: "member" },
  "team.member_removed": { category: "team", payloadKey: "member" },
  "document.signed": { category: "documents", payloadKey: "document" },
  "document.expired": { category: "documents", payloadKey: "document" },
  "document.closed": { category: "documents", payloadKey: "document" },
  "invoice.created": { category: "invoices", payloadKey: "invoice" },
  "invoice.canceled": { category: "invoices", payloadKey: "invoice" },
  "action_item.created": { category: "action_items", payloadKey: "action_item" },
  "action_item.completed": { category: "action_items", payloadKey: "action_item" },
  "action_item.finished": { category: "action_items", payloadKey: "action_item" },
  // Beyond the spec (issue 22): an endpoint the service stopped delivering to, told to the team's other endpoints.
  "webhook.endpoint.disabled": { category: "webhooks", payloadKey: "webhook" },
  // Beyond the spec (issue 39): a member's payout address changed, told to each of their teams.
  "withdraw_account.updated": { category: "deposits", payloadKey: "withdraw_account" }
} as const satisfies Record<string, { readonly category: string; readonly payloadKey: string }>

/** An event kind. */
export type EventType = keyof typeof EventCatalog

/** Every event kind, in catalog order. */
export const eventTypes = Object.keys(EventCatalog) as unknown as readonly [EventType, ...Array<EventType>]

/**
 * The kinds this service emits (docs/webhooks.md lists each, with what emits it). An event is made only of one of
 * these (`NewEvent`), so emitting another kind means adding it here and to the docs. The rest of the catalog can be
 * subscribed to and tested.
 */
export const emittedEventTypes = [
  "payment.group.created",
  "payment.sent",
  "payment.failed",
  "payment.canceled",
  "payment.subscription.created",
  "payment.subscription.paid",
  "payment.cash_requirement.created",
  "payment.cash_requirement.due",
  "deposit.received",
  "token.transfer",
  "invite.accepted",
  "invite.rejected",
  "invite.expired",
  "team.member_added",
  "team.member_removed",
  "invoice.created",
  "invoice.canceled",
  "team.member_blocked",
  "withdraw_account.updated",
  "withdraw_account.duplicated_detected",
  "webhook.endpoint.disabled"
] as const satisfies ReadonlyArray<EventType>

/** A kind this service emits. */
export type EmittedEventType = (typeof emittedEventTypes)[number]

/** The categories of SPEC §6. */
export const EventCategory = Schema.Literals([
  "payments",
  "deposits",
  "invites",
  "onboarding",
  "team",
  "documents",
  "invoices",
  "action_items",
  "webhooks"
])
export type EventCategory = typeof EventCategory.Type

/** What decoding an unknown kind says; the HTTP adapter answers it `INVALID_EVENT_TYPE`. */
export const unknownEventTypeMessage = "Unknown event type: expected an event kind of the catalog (SPEC §6)"

/** Schema of an event kind: one of the catalog. */
export const EventTypeSchema = Schema.Literals(eventTypes).annotate({
  description: "An event kind of the catalog (SPEC §6)",
  message: unknownEventTypeMessage
})

/** The category of an event kind. */
export const categoryOf = (type: EventType): EventCategory => EventCatalog[type].category

/** The event kinds of a category. */
export const eventTypesOf = (category: EventCategory): ReadonlyArray<EventType> =>
  eventTypes.filter((type) => EventCatalog[type].category === category)
