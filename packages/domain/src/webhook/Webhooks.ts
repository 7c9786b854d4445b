/**
 * The webhook use cases (SPEC §4.1, §4.8, DESIGN §5b): endpoints of a team, their secrets, the delivery log, replay
 * and test deliveries, each for a caller who may manage the team's webhooks (`webhooks.manage`, team admins). A route
 * that names an endpoint answers `WebhookNotFound` to anyone else, so it reveals nothing of the endpoint.
 */
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { type ErrorCode, messageField } from "../errors/ErrorCatalog.ts"
import { type DomainEvent, makeUuid, renderEnvelope } from "../event/EventEnvelope.ts"
import { samplePayloadOf } from "../event/EventPayload.ts"
import { type DeliveryId, IdGenerator, type TeamId, type WebhookId } from "../Ids.ts"
import type { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { Randomness } from "../Randomness.ts"
import { isoOf } from "../Timestamp.ts"
import type { TeamNotFound } from "../team/TeamNotFound.ts"
import type { Caller } from "../user/Caller.ts"
import type { LoggedDelivery, WebhookDelivery } from "./WebhookDelivery.ts"
import {
  rotationGraceMillis,
  type WebhookEndpoint,
  type WebhookEndpointRecord,
  type WebhookSecret,
  webhookEndpointOf
} from "./WebhookEndpoint.ts"
import { WebhookMachine } from "./WebhookMachine.ts"
import {
  DeliveryNotFound,
  WebhookDeliveryStore,
  WebhookEndpointRepository,
  WebhookNotFound
} from "./WebhookRepository.ts"
import type {
  CreatedWebhook,
  CreateWebhookRequest,
  DeliveriesQuery,
  DeliveryPage,
  DeliveryView,
  UpdateWebhookRequest,
  WebhookTestRequest,
  WebhookTestResult
} from "./WebhookRequests.ts"
import { deliveryPageRange } from "./WebhookRequests.ts"
import { WebhookSecretBox } from "./WebhookSender.ts"
import { InvalidWebhookUrl, normalizedWebhookUrl, WebhookUrlPolicy } from "./WebhookUrlPolicy.ts"

/** The endpoint is disabled: it receives nothing, test deliveries included, until enabled again. */
export class WebhookDisabled extends Schema.TaggedError<WebhookDisabled>()("WebhookDisabled", {
  message: messageField("WEBHOOK_DISABLED")
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "WEBHOOK_DISABLED"
  }
}

/** The delivery log cursor does not name a place in the log. */
export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", {
  message: messageField("VALIDATION_ERROR")
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "VALIDATION_ERROR"
  }
}

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export const makeWebhookSecret: Effect.Effect<WebhookSecret, never, Randomness> = Randomness.use((r) =>
  Effect.map(r.bytes(32), (bytes) => `whsec_${btoa(String.fromCharCode(...bytes))}`)
)

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
    error: a.error ?? null
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

/** Why a team-scoped webhook action is refused. */
export type WebhookTeamError = TeamNotFound | InsufficientPermissions

/** Webhook endpoints and their deliveries, for a caller. */
export class Webhooks extends Context.Service<
  Webhooks,
  {
    /** Registers an endpoint; the answer carries its signing secret, shown this once. */
    readonly create: (
      caller: Caller,
      body: CreateWebhookRequest
    ) => Effect.Effect<CreatedWebhook, WebhookTeamError | InvalidWebhookUrl>
    readonly get: (caller: Caller, id: WebhookId) => Effect.Effect<WebhookEndpoint, WebhookNotFound>
    readonly list: (
      caller: Caller,
      team: TeamId
    ) => Effect.Effect<{ readonly items: ReadonlyArray<WebhookEndpoint> }, WebhookTeamError>
    /** Changes an endpoint; enabling a disabled one re-queues what failed while it was off. */
    readonly update: (
      caller: Caller,
      id: WebhookId,
      body: UpdateWebhookRequest
    ) => Effect.Effect<WebhookEndpoint, WebhookNotFound | InvalidWebhookUrl>
    readonly delete: (
      caller: Caller,
      id: WebhookId
    ) => Effect.Effect<{ readonly webhook_nanoid: WebhookId; readonly deleted: true }, WebhookNotFound>
    /** A new secret; the previous one keeps signing beside it for 24 h. */
    readonly rotateSecret: (
      caller: Caller,
      id: WebhookId
    ) => Effect.Effect<{ readonly secret: WebhookSecret; readonly previous_expires_at: string }, WebhookNotFound>
    readonly deliveries: (
      caller: Caller,
      id: WebhookId,
      query: DeliveriesQuery
    ) => Effect.Effect<DeliveryPage, WebhookNotFound | InvalidCursor>
    /** Sends one delivery again now. */
    readonly retry: (
      caller: Caller,
      id: WebhookId,
      delivery: DeliveryId
    ) => Effect.Effect<DeliveryView, WebhookNotFound | DeliveryNotFound>
    /** Re-queues every failed delivery created at or after `since`. */
    readonly recover: (
      caller: Caller,
      id: WebhookId,
      since: string
    ) => Effect.Effect<{ readonly requeued: number }, WebhookNotFound>
    /** A real delivery of a sample payload of the kind and major asked for, in the log like any other. */
    readonly test: (
      caller: Caller,
      id: WebhookId,
      body: WebhookTestRequest
    ) => Effect.Effect<WebhookTestResult, WebhookNotFound | WebhookDisabled>
  }
>()("@svc/domain/webhook/Webhooks") {
  /** On the webhook ports, `TeamAccess`, `IdGenerator`, `Randomness` and `WebhookUrlPolicy`. */
  static readonly layer = Layer.effect(
    Webhooks,
    Effect.gen(function* () {
      const access = yield* TeamAccess
      const endpoints = yield* WebhookEndpointRepository
      const deliveries = yield* WebhookDeliveryStore
      const box = yield* WebhookSecretBox
      const rules = yield* WebhookUrlPolicy
      const ids = yield* IdGenerator
      const randomness = yield* Randomness
      const services = Layer.mergeAll(Layer.succeed(Randomness, randomness), Layer.succeed(IdGenerator, ids))

      /** The URL to store: parsed and normalised, or refused (`normalizedWebhookUrl`). */
      const checkUrl = (url: string) => {
        const checked = normalizedWebhookUrl(url, rules)
        return "url" in checked
          ? Effect.succeed(checked.url)
          : Effect.fail(new InvalidWebhookUrl({ message: checked.refusal }))
      }

      /** The endpoint, when the caller may manage its team's webhooks; `WebhookNotFound` otherwise. */
      const endpointFor = Effect.fn("Webhooks.endpointFor")(function* (caller: Caller, id: WebhookId) {
        const endpoint = yield* endpoints.findById(id)
        yield* access
          .authorize(caller, endpoint.team_nanoid, "webhooks.manage")
          .pipe(Effect.mapError(() => new WebhookNotFound({ nanoid: id })))
        return endpoint
      })

      const now = Clock.currentTimeMillis

      return Webhooks.of({
        create: Effect.fn("Webhooks.create")(function* (caller, body) {
          const { team } = yield* access.authorize(caller, body.team_nanoid, "webhooks.manage")
          const url = yield* checkUrl(body.url)
          const secret = yield* makeWebhookSecret.pipe(Effect.provide(services))
          const at = isoOf(yield* now)
          const record: WebhookEndpointRecord = {
            nanoid: yield* ids.make("webhook"),
            company_nanoid: team.company_nanoid,
            team_nanoid: team.nanoid,
            url,
            events: body.events,
            state: "active",
            name: body.name,
            description: body.description,
            version: body.version,
            secrets: [{ sealed: yield* box.seal(secret) }],
            created_at: at,
            updated_at: at
          }
          yield* endpoints.insert(record)
          return { ...webhookEndpointOf(record), secret }
        }),

        get: Effect.fn("Webhooks.get")(function* (caller, id) {
          return webhookEndpointOf(yield* endpointFor(caller, id))
        }),

        list: Effect.fn("Webhooks.list")(function* (caller, team) {
          yield* access.authorize(caller, team, "webhooks.manage")
          return { items: (yield* endpoints.listByTeam(team)).map(webhookEndpointOf) }
        }),

        update: Effect.fn("Webhooks.update")(function* (caller, id, body) {
          const endpoint = yield* endpointFor(caller, id)
          const url = body.url === undefined ? undefined : yield* checkUrl(body.url)
          const at = yield* now
          const { is_active, ...given } = body
          const fields = url === undefined ? given : { ...given, url }
          let updated = yield* endpoints.update(id, { ...fields, updated_at: isoOf(at) })
          const to = is_active === undefined ? updated.state : is_active ? "active" : "disabled"
          if (to !== updated.state) {
            const from = updated.state
            yield* WebhookMachine.transition(from, to === "active" ? "enable" : "disable").pipe(Effect.orDie)
            updated = yield* endpoints
              .transition(
                id,
                from,
                to,
                to === "active"
                  ? { updated_at: isoOf(at), unset: ["failing_since"] }
                  : { updated_at: isoOf(at), disabled_at: isoOf(at) }
              )
              .pipe(Effect.catchTag("StaleState", () => endpoints.findById(id)))
            // What failed while it was off is sent again.
            if (to === "active" && endpoint.disabled_at !== undefined) {
              yield* deliveries.requeueFailed(id, { since: Date.parse(endpoint.disabled_at), by: "updated", now: at })
            }
          }
          return webhookEndpointOf(updated)
        }),

        delete: Effect.fn("Webhooks.delete")(function* (caller, id) {
          yield* endpointFor(caller, id)
          yield* endpoints.delete(id)
          return { webhook_nanoid: id, deleted: true as const }
        }),

        rotateSecret: Effect.fn("Webhooks.rotateSecret")(function* (caller, id) {
          const endpoint = yield* endpointFor(caller, id)
          const at = yield* now
          const secret = yield* makeWebhookSecret.pipe(Effect.provide(services))
          const previous_expires_at = isoOf(at + rotationGraceMillis)
          // The current secret signs for the grace period; older ones keep their own (shorter) end.
          const [current, ...older] = endpoint.secrets
          const kept = older.filter((s) => s.expires_at !== undefined && Date.parse(s.expires_at) > at)
          yield* endpoints.update(id, {
            secrets: [
              { sealed: yield* box.seal(secret) },
              { sealed: current.sealed, expires_at: previous_expires_at },
              ...kept
            ],
            updated_at: isoOf(at)
          })
          return { secret, previous_expires_at }
        }),

        deliveries: Effect.fn("Webhooks.deliveries")(function* (caller, id, query) {
          yield* endpointFor(caller, id)
          const before = query.cursor === undefined ? undefined : parseCursor(query.cursor)
          if (query.cursor !== undefined && before === undefined) {
            return yield* new InvalidCursor({ message: "The cursor is not one this log answered" })
          }
          const limit = query.limit ?? deliveryPageRange.default
          const page = yield* deliveries.list(id, { status: query.status, before, limit: limit + 1 })
          const items = page.slice(0, limit)
          const last = items.at(-1)
          return {
            items: items.map(deliveryViewOf),
            next_cursor: page.length > limit && last !== undefined ? cursorOf(last) : null
          }
        }),

        retry: Effect.fn("Webhooks.retry")(function* (caller, id, delivery) {
          yield* endpointFor(caller, id)
          const found = yield* deliveries.findById(delivery)
          if (found === undefined || found.webhook_nanoid !== id)
            return yield* new DeliveryNotFound({ nanoid: delivery })
          yield* deliveries.requeue(delivery, yield* now)
          const requeued = yield* deliveries.findById(delivery)
          return deliveryViewOf(requeued ?? found)
        }),

        recover: Effect.fn("Webhooks.recover")(function* (caller, id, since) {
          yield* endpointFor(caller, id)
          const requeued = yield* deliveries.requeueFailed(id, {
            since: Date.parse(since),
            by: "created",
            now: yield* now
          })
          return { requeued }
        }),

        test: Effect.fn("Webhooks.test")(function* (caller, id, body) {
          const endpoint = yield* endpointFor(caller, id)
          if (endpoint.state !== "active") return yield* new WebhookDisabled({})
          const at = yield* now
          const version = body.version ?? endpoint.version
          const event: DomainEvent = {
            id: yield* ids.make("event"),
            event_type: body.event_type,
            created: Math.floor(at / 1000),
            company_nanoid: endpoint.company_nanoid,
            team_nanoid: endpoint.team_nanoid,
            idempotency_key: yield* makeUuid.pipe(Effect.provide(services)),
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
          yield* deliveries.enqueue([delivery])
          return {
            delivery_nanoid: delivery.nanoid,
            message: "Test delivery queued; its attempts appear in the delivery log",
            test_payload: renderEnvelope(event, version) as Record<string, unknown>,
            version
          }
        })
      })
    })
  ).pipe(Layer.provide(TeamAccess.layer))
}
