/**
 * The storage ports of webhooks: endpoints, and the delivery log (deliveries and their attempts, stored apart).
 */
import { Context, type Effect, Schema } from "effect"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"
import type { EventType } from "../event/EventCatalog.ts"
import type { Backlog } from "../event/EventOutbox.ts"
import type { DeliveryId, TeamId, WebhookId } from "../Ids.ts"
import type { FencingToken, Lease } from "../Lease.ts"
import type { StaleState } from "../StaleState.ts"
import type { DeliveryAttempt, DeliveryStatus, LoggedDelivery, WebhookDelivery } from "./WebhookDelivery.ts"
import type { WebhookEndpointRecord } from "./WebhookEndpoint.ts"
import type { WebhookState } from "./WebhookMachine.ts"

/** No webhook endpoint has this id (or the caller may not know of it). */
export class WebhookNotFound extends Schema.TaggedError<WebhookNotFound>()("WebhookNotFound", {
  nanoid: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "WEBHOOK_NOT_FOUND"
  }
}

/** No delivery of this endpoint has this id. */
export class DeliveryNotFound extends Schema.TaggedError<DeliveryNotFound>()("DeliveryNotFound", {
  nanoid: Schema.String
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "NOT_FOUND"
  }
}

/** Changes to an endpoint's record. */
export type WebhookEndpointPatch = Partial<
  Pick<
    WebhookEndpointRecord,
    "url" | "events" | "name" | "description" | "version" | "secrets" | "failing_since" | "disabled_at" | "updated_at"
  >
> & {
  /** Fields to remove (`failing_since` after a success). */
  readonly unset?: ReadonlyArray<"failing_since" | "disabled_at">
}

/**
 * Stored endpoints. `subscribed` answers only active endpoints of the team listing the kind; `transition` is one
 * atomic conditional update (only from the stored state `from`, else `StaleState`).
 */
export class WebhookEndpointRepository extends Context.Service<
  WebhookEndpointRepository,
  {
    readonly insert: (endpoint: WebhookEndpointRecord) => Effect.Effect<void>
    readonly findById: (id: WebhookId) => Effect.Effect<WebhookEndpointRecord, WebhookNotFound>
    /** The team's endpoints, oldest first. */
    readonly listByTeam: (team: TeamId) => Effect.Effect<ReadonlyArray<WebhookEndpointRecord>>
    readonly subscribed: (team: TeamId, type: EventType) => Effect.Effect<ReadonlyArray<WebhookEndpointRecord>>
    readonly update: (
      id: WebhookId,
      patch: WebhookEndpointPatch
    ) => Effect.Effect<WebhookEndpointRecord, WebhookNotFound>
    /** Moves the endpoint from `from` to `to` with `patch`. */
    readonly transition: (
      id: WebhookId,
      from: WebhookState,
      to: WebhookState,
      patch: WebhookEndpointPatch
    ) => Effect.Effect<WebhookEndpointRecord, WebhookNotFound | StaleState>
    /** Removes the endpoint; true when there was one. Its delivery log stays until its deliveries are purged. */
    readonly delete: (id: WebhookId) => Effect.Effect<boolean>
  }
>()("@svc/domain/webhook/WebhookEndpointRepository") {}

/** A claimed delivery: the record and the lease its holder acts under. */
export interface ClaimedDelivery {
  readonly delivery: WebhookDelivery
  readonly lease: Lease
}

/** What an attempt changed: the attempt (absent when the delivery ended without one) and the delivery's next state. */
export interface AttemptRecord {
  readonly attempt?: DeliveryAttempt | undefined
  readonly status: DeliveryStatus
  readonly next_attempt_at?: number | undefined
  readonly first_attempt_at?: number | undefined
  readonly at: number
}

/**
 * The delivery log. Implementations must keep one delivery per (event, endpoint) whatever the enqueues, lease each
 * due delivery to one holder at a time across processes (`Lease`, the adapter's lease mechanism), and apply an
 * attempt only while its holder still holds the delivery, the attempt row and the delivery's new state together.
 */
export class WebhookDeliveryStore extends Context.Service<
  WebhookDeliveryStore,
  {
    /** Adds deliveries, ignoring any whose (event, endpoint) is already there. */
    readonly enqueue: (deliveries: ReadonlyArray<WebhookDelivery>) => Effect.Effect<void>
    /** Pending deliveries due at `now` (epoch ms), soonest first, each leased until `now + leaseMillis`. */
    readonly claimDue: (options: {
      readonly now: number
      readonly limit: number
      readonly leaseMillis: number
    }) => Effect.Effect<ReadonlyArray<ClaimedDelivery>>
    /** Records an attempt and releases the lease; false when `token` is no longer the delivery's current one. */
    readonly record: (id: DeliveryId, token: FencingToken, record: AttemptRecord) => Effect.Effect<boolean>
    readonly findById: (id: DeliveryId) => Effect.Effect<LoggedDelivery | undefined>
    /** An endpoint's deliveries, newest first (by creation, then id), after `before` when given. */
    readonly list: (
      webhook: WebhookId,
      options: {
        readonly status?: DeliveryStatus | undefined
        readonly before?: { readonly created_at: number; readonly nanoid: DeliveryId } | undefined
        readonly limit: number
      }
    ) => Effect.Effect<ReadonlyArray<LoggedDelivery>>
    /** Makes one delivery due at `now` again (a fresh retry window); false when there is none. */
    readonly requeue: (id: DeliveryId, now: number) => Effect.Effect<boolean>
    /**
     * Makes every failed delivery of the endpoint created (or, `by: "updated"`, last changed) at or after `since`
     * due at `now` again; answers how many.
     */
    readonly requeueFailed: (
      webhook: WebhookId,
      options: { readonly since: number; readonly by: "created" | "updated"; readonly now: number }
    ) => Effect.Effect<number>
    /** The pending deliveries: how many, and when the oldest was created. */
    readonly backlog: Effect.Effect<Backlog>
  }
>()("@svc/domain/webhook/WebhookDeliveryStore") {}
