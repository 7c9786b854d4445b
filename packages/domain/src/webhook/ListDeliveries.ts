/** An endpoint's delivery log (SPEC §4.8), newest first, a page at a time behind an opaque cursor. */
import { Effect } from "effect"
import type { DeliveryId, WebhookId } from "../Ids.ts"
import { isoOf } from "../Timestamp.ts"
import type { Caller } from "../user/Caller.ts"
import { InvalidCursor, manageableEndpoint } from "./WebhookAccess.ts"
import type { LoggedDelivery, WebhookDelivery } from "./WebhookDelivery.ts"
import { WebhookDeliveryStore } from "./WebhookRepository.ts"
import { type DeliveriesQuery, type DeliveryPage, type DeliveryView, deliveryPageRange } from "./WebhookRequests.ts"

/** A delivery as the log shows it. */
export const deliveryViewOf = (delivery: LoggedDelivery): DeliveryView => ({
  delivery_nanoid: delivery.nanoid,
  event_nanoid: delivery.event.id,
  event_type: delivery.event.event_type,
  status: delivery.status,
  attempts: delivery.attempt_log.map((a) => ({
    at: isoOf(a.at),
    status_code: a.status_code ?? null,
    duration_ms: Math.round(a.duration_ms),
    error: a.error ?? null,
    response_body: a.response_body?.text ?? null,
    response_body_truncated: a.response_body?.truncated ?? false
  })),
  next_attempt_at:
    delivery.status === "pending" && delivery.next_attempt_at !== undefined ? isoOf(delivery.next_attempt_at) : null,
  created_at: isoOf(delivery.created_at)
})

// The cursor is the last delivery's place in the log's order: its creation time and id.
const cursorOf = (delivery: WebhookDelivery) => `${delivery.created_at}.${delivery.nanoid}`
const parseCursor = (cursor: string) => {
  const match = /^(\d{1,16})\.(dl-[0-9A-Za-z_-]{1,61})$/.exec(cursor)
  return match === null ? undefined : { created_at: Number(match[1]), nanoid: match[2] as DeliveryId }
}

/** A page of the log, filtered by status; `InvalidCursor` for a cursor this log did not answer. */
export const listDeliveries = Effect.fn("Webhooks.deliveries")(function* (
  caller: Caller,
  id: WebhookId,
  query: DeliveriesQuery
) {
  yield* manageableEndpoint(caller, id)
  const before = query.cursor === undefined ? undefined : parseCursor(query.cursor)
  if (query.cursor !== undefined && before === undefined) {
    return yield* new InvalidCursor({ message: "The cursor is not one this log answered" })
  }
  const limit = query.limit ?? deliveryPageRange.default
  const page = yield* WebhookDeliveryStore.use((d) => d.list(id, { status: query.status, before, limit: limit + 1 }))
  const items = page.slice(0, limit)
  const last = items.at(-1)
  return {
    items: items.map(deliveryViewOf),
    next_cursor: page.length > limit && last !== undefined ? cursorOf(last) : null
  } satisfies DeliveryPage
})
