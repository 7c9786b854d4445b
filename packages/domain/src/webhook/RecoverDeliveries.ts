/** Recovering an endpoint's failed deliveries (SPEC §4.8): every one created since a time is sent again. */
import { Clock, Effect } from "effect"
import type { WebhookId } from "../Ids.ts"
import type { Caller } from "../user/Caller.ts"
import { manageableEndpoint } from "./WebhookAccess.ts"
import { WebhookDeliveryStore } from "./WebhookRepository.ts"

/** Re-queues every failed delivery created at or after `since`; answers how many. */
export const recoverDeliveries = Effect.fn("Webhooks.recover")(function* (
  caller: Caller,
  id: WebhookId,
  since: string
) {
  yield* manageableEndpoint(caller, id)
  const now = yield* Clock.currentTimeMillis
  const requeued = yield* WebhookDeliveryStore.use((d) =>
    d.requeueFailed(id, { since: Date.parse(since), by: "created", now })
  )
  return { requeued }
})
