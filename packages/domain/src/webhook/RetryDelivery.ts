/** Sending one delivery of an endpoint again now (SPEC §4.8). */
import { Clock, Effect } from "effect"
import type { DeliveryId, WebhookId } from "../Ids.ts"
import type { Caller } from "../user/Caller.ts"
import { deliveryViewOf } from "./ListDeliveries.ts"
import { manageableEndpoint } from "./WebhookAccess.ts"
import { DeliveryNotFound, WebhookDeliveryStore } from "./WebhookRepository.ts"

/** Re-queues the delivery for now; `DeliveryNotFound` unless it is one of this endpoint's. */
export const retryDelivery = Effect.fn("Webhooks.retry")(function* (
  caller: Caller,
  id: WebhookId,
  delivery: DeliveryId
) {
  yield* manageableEndpoint(caller, id)
  const deliveries = yield* WebhookDeliveryStore
  const found = yield* deliveries.findById(delivery)
  if (found === undefined || found.webhook_nanoid !== id) return yield* new DeliveryNotFound({ nanoid: delivery })
  yield* deliveries.requeue(delivery, yield* Clock.currentTimeMillis)
  const requeued = yield* deliveries.findById(delivery)
  return deliveryViewOf(requeued ?? found)
})
