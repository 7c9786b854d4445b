/**
 * A test delivery (SPEC §4.8): a real delivery of a sample payload of the kind and major version asked for, in the
 * log like any other.
 */
import { Clock, Effect } from "effect"
import { type DomainEvent, makeUuid, renderEnvelope } from "../event/EventEnvelope.ts"
import { samplePayloadOf } from "../event/EventPayload.ts"
import { IdGenerator, type WebhookId } from "../Ids.ts"
import type { Caller } from "../user/Caller.ts"
import { manageableEndpoint, WebhookDisabled } from "./WebhookAccess.ts"
import type { WebhookDelivery } from "./WebhookDelivery.ts"
import { WebhookDeliveryStore } from "./WebhookRepository.ts"
import type { WebhookTestRequest, WebhookTestResult } from "./WebhookRequests.ts"

/** Queues the sample delivery to an active endpoint; `WebhookDisabled` for a disabled one. */
export const sendTestDelivery = Effect.fn("Webhooks.test")(function* (
  caller: Caller,
  id: WebhookId,
  body: WebhookTestRequest
) {
  const endpoint = yield* manageableEndpoint(caller, id)
  if (endpoint.state !== "active") return yield* new WebhookDisabled({})
  const ids = yield* IdGenerator
  const at = yield* Clock.currentTimeMillis
  const version = body.version ?? endpoint.version
  const event: DomainEvent = {
    id: yield* ids.make("event"),
    event_type: body.event_type,
    created: Math.floor(at / 1000),
    company_nanoid: endpoint.company_nanoid,
    team_nanoid: endpoint.team_nanoid,
    idempotency_key: yield* makeUuid,
    data: samplePayloadOf(body.event_type)
  }
  const delivery: WebhookDelivery = {
    nanoid: yield* ids.make("delivery"),
    webhook_nanoid: id,
    team_nanoid: endpoint.team_nanoid,
    event,
    version,
    status: "pending",
    attempts: 0,
    next_attempt_at: at,
    created_at: at,
    updated_at: at
  }
  yield* WebhookDeliveryStore.use((deliveries) => deliveries.enqueue([delivery]))
  return {
    delivery_nanoid: delivery.nanoid,
    message: "Test delivery queued; its attempts appear in the delivery log",
    test_payload: renderEnvelope(event, version) as Record<string, unknown>,
    version
  } satisfies WebhookTestResult
})
