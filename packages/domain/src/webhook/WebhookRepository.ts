/**
 * The ports of webhook endpoints and of their delivery queue.
 */
import { Context, type Effect, Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"
import type { EventType } from "../event/EventCatalog.ts"
import type { DeliveryId, TeamId, WebhookId } from "../Ids.ts"
import type { StaleState } from "../StaleState.ts"
import type { WebhookDelivery } from "./WebhookDelivery.ts"
import type { WebhookEndpointRecord } from "./WebhookEndpoint.ts"
import type { WebhookState } from "./WebhookMachine.ts"

/** No webhook endpoint has this id. */
export class WebhookNotFound extends Schema.TaggedError<WebhookNotFound>()("WebhookNotFound", {
  nanoid: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "WEBHOOK_NOT_FOUND"
  }
}

/** Changes an owner may make to an endpoint. */
export type WebhookEndpointPatch = Partial<
  Pick<WebhookEndpointRecord, "url" | "events" | "name" | "description" | "secrets" | "failing_since" | "updated_at">
>

/**
 * Stored endpoints. Implementations must make `transition` one atomic conditional update (only from the stored
 * state `from`, else `StaleState`) and `subscribed` return only active endpoints of the team listing the kind.
 */
export class WebhookEndpointRepository extends Context.Service<
  WebhookEndpointRepository,
  {
    readonly insert: (endpoint: WebhookEndpointRecord) => Effect.Effect<void>
    readonly findById: (id: WebhookId) => Effect.Effect<WebhookEndpointRecord, WebhookNotFound>
    readonly listByTeam: (team: TeamId) => Effect.Effect<ReadonlyArray<WebhookEndpointRecord>>
    readonly subscribed: (team: TeamId, type: EventType) => Effect.Effect<ReadonlyArray<WebhookEndpointRecord>>
    readonly update: (
      id: WebhookId,
      patch: WebhookEndpointPatch
    ) => Effect.Effect<WebhookEndpointRecord, WebhookNotFound>
    readonly transition: (
      id: WebhookId,
      from: WebhookState,
      to: WebhookState
    ) => Effect.Effect<WebhookEndpointRecord, WebhookNotFound | StaleState>
  }
>()("@svc/domain/webhook/WebhookEndpointRepository") {}

/**
 * The delivery queue. Implementations must make `claimDue` lease each delivery to one worker at a time across
 * machines (an atomic conditional update on the lease), so a delivery is attempted by at most one worker at once.
 */
export class WebhookDeliveryQueue extends Context.Service<
  WebhookDeliveryQueue,
  {
    readonly enqueue: (deliveries: ReadonlyArray<WebhookDelivery>) => Effect.Effect<void>
    /** Pending deliveries due at `now` (epoch ms), leased to `worker` for `leaseMillis`. */
    readonly claimDue: (options: {
      readonly now: number
      readonly limit: number
      readonly worker: string
      readonly leaseMillis: number
    }) => Effect.Effect<ReadonlyArray<WebhookDelivery>>
    /** Records an attempt and releases the lease. */
    readonly record: (id: DeliveryId, delivery: WebhookDelivery) => Effect.Effect<void>
  }
>()("@svc/domain/webhook/WebhookDeliveryQueue") {}
