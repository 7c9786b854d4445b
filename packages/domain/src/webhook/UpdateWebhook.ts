/**
 * Changing a webhook endpoint (SPEC §4.8): its fields, and whether it is active. Enabling a disabled endpoint
 * re-queues what failed while it was off.
 */
import { Clock, Effect } from "effect"
import type { WebhookId } from "../Ids.ts"
import { isoOf } from "../Timestamp.ts"
import type { Caller } from "../user/Caller.ts"
import { checkedUrl, manageableEndpoint } from "./WebhookAccess.ts"
import { type WebhookEndpointRecord, webhookEndpointOf } from "./WebhookEndpoint.ts"
import { WebhookMachine } from "./WebhookMachine.ts"
import { WebhookDeliveryStore, WebhookEndpointRepository } from "./WebhookRepository.ts"
import type { UpdateWebhookRequest } from "./WebhookRequests.ts"

/** Moves the endpoint to `to` (active or disabled) when it is not there; re-queues what failed while it was off. */
const switchState = Effect.fn("Webhooks.switchState")(function* (
  before: WebhookEndpointRecord,
  updated: WebhookEndpointRecord,
  to: WebhookEndpointRecord["state"],
  at: number
) {
  const endpoints = yield* WebhookEndpointRepository
  const from = updated.state
  if (to === from) return updated
  yield* WebhookMachine.transition(from, to === "active" ? "enable" : "disable").pipe(Effect.orDie)
  const changes =
    to === "active"
      ? { updated_at: isoOf(at), unset: ["failing_since" as const] }
      : { updated_at: isoOf(at), disabled_at: isoOf(at) }
  const switched = yield* endpoints
    .transition(before.nanoid, from, to, changes)
    .pipe(Effect.catchTag("StaleState", () => endpoints.findById(before.nanoid)))
  if (to === "active" && before.disabled_at !== undefined) {
    const since = Date.parse(before.disabled_at)
    yield* WebhookDeliveryStore.use((d) => d.requeueFailed(before.nanoid, { since, by: "updated", now: at }))
  }
  return switched
})

/** Changes the endpoint's fields (a URL is checked as on creation), then its state when `is_active` is given. */
export const updateWebhook = Effect.fn("Webhooks.update")(function* (
  caller: Caller,
  id: WebhookId,
  body: UpdateWebhookRequest
) {
  const endpoint = yield* manageableEndpoint(caller, id)
  const url = body.url === undefined ? undefined : yield* checkedUrl(body.url)
  const at = yield* Clock.currentTimeMillis
  const { is_active, ...given } = body
  const fields = url === undefined ? given : { ...given, url }
  const updated = yield* WebhookEndpointRepository.use((e) => e.update(id, { ...fields, updated_at: isoOf(at) }))
  const to = is_active === undefined ? updated.state : is_active ? "active" : "disabled"
  return webhookEndpointOf(yield* switchState(endpoint, updated, to, at))
})
