/**
 * The webhook dispatcher: a worker every API process runs (DESIGN §5). It fans each recorded event out to the team's
 * active endpoints that subscribe to its kind (one delivery per event and endpoint), then sends due deliveries,
 * signed, recording every attempt and scheduling retries. Events and deliveries are claimed with leases, so any
 * number of dispatchers share the work; a dispatcher that dies mid-send loses nothing: its lease lapses and another
 * attempt is made.
 */
import { Clock, Context, Duration, Effect, Layer, Metric, Option } from "effect"
import type { DomainEvent } from "../event/EventEnvelope.ts"
import { makeDomainEvent, renderEnvelope } from "../event/EventEnvelope.ts"
import { EventOutbox } from "../event/EventOutbox.ts"
import type { WebhookEndpointEventPayload } from "../event/EventPayload.ts"
import { IdGenerator } from "../Ids.ts"
import { Randomness } from "../Randomness.ts"
import { isoOf } from "../Timestamp.ts"
import { repeatQuietly } from "../Worker.ts"
import {
  type AttemptResult,
  defaultRetrySchedule,
  deliveryTimeoutMillis,
  failingDisableAfterMillis,
  nextAttemptAt,
  outcomeOf,
  type RetrySchedule,
  type WebhookDelivery
} from "./WebhookDelivery.ts"
import { liveSecrets, type WebhookEndpointRecord, type WebhookSecret } from "./WebhookEndpoint.ts"
import { type ClaimedDelivery, WebhookDeliveryStore, WebhookEndpointRepository } from "./WebhookRepository.ts"
import { WebhookSecretBox, WebhookSender } from "./WebhookSender.ts"

/** Delivery attempts, by outcome: `delivered`, `retry` (a failure to try again) or `gone` (410: disabled). */
export const webhookAttempts = Metric.counter("svc_webhook_delivery_attempts_total", {
  description: "Webhook delivery attempts, by outcome (delivered, retry, gone)",
  incremental: true
})

/** How a dispatcher works; the defaults are DESIGN §5's. */
export interface DispatcherOptions {
  /** Names this dispatcher's claims of events. */
  readonly worker: string
  /** How long to wait when there is nothing to do (ms). */
  readonly idleMillis?: number | undefined
  readonly schedule?: RetrySchedule | undefined
  /** How long a claimed event or delivery is held before another dispatcher may take it (ms). */
  readonly leaseMillis?: number | undefined
  /** Deliveries claimed, and sent concurrently, at a time by one delivery loop. */
  readonly batch?: number | undefined
  /** Delivery loops in this process, each claiming its own batch (so one slow receiver stalls no other). */
  readonly loops?: number | undefined
  readonly timeoutMillis?: number | undefined
}

/** One pass's work: events fanned out and attempts made. */
export interface DispatchPass {
  readonly events: number
  readonly attempts: number
}

/** The dispatcher's steps, for a worker loop or a test that drives it. */
export class WebhookDispatcher extends Context.Service<
  WebhookDispatcher,
  {
    /** Fans claimed events out into deliveries and marks them dispatched; answers how many events. */
    readonly fanOut: Effect.Effect<number>
    /** Claims due deliveries and makes one attempt of each; answers how many. */
    readonly deliverDue: Effect.Effect<number>
  }
>()("@svc/domain/webhook/WebhookDispatcher") {
  /** The steps on the webhook ports. */
  static readonly layer = (options: DispatcherOptions) =>
    Layer.effect(
      WebhookDispatcher,
      Effect.gen(function* () {
        const outbox = yield* EventOutbox
        const endpoints = yield* WebhookEndpointRepository
        const store = yield* WebhookDeliveryStore
        const sender = yield* WebhookSender
        const box = yield* WebhookSecretBox
        const ids = yield* IdGenerator
        const randomness = yield* Randomness
        const schedule = options.schedule ?? defaultRetrySchedule
        const leaseMillis = options.leaseMillis ?? 60_000
        const batch = options.batch ?? 32
        // Secrets are opened once per sealed value: an AES decryption per attempt buys nothing.
        const opened = new Map<string, WebhookSecret>()
        const open = (sealed: string) => {
          const known = opened.get(sealed)
          return known === undefined
            ? Effect.tap(box.open(sealed), (secret) => Effect.sync(() => opened.set(sealed, secret)))
            : Effect.succeed(known)
        }
        const timeoutMillis = options.timeoutMillis ?? deliveryTimeoutMillis

        const deliveriesOf = Effect.fn("WebhookDispatcher.deliveriesOf")(function* (event: DomainEvent, at: number) {
          if (event.team_nanoid === undefined) return []
          const team = event.team_nanoid
          const subscribed = yield* endpoints.subscribed(team, event.event_type)
          return yield* Effect.forEach(
            subscribed,
            (endpoint): Effect.Effect<WebhookDelivery> =>
              Effect.map(ids.make("delivery"), (nanoid) => ({
                nanoid,
                webhook_nanoid: endpoint.nanoid,
                team_nanoid: team,
                event,
                status: "pending",
                attempts: 0,
                next_attempt_at: at,
                created_at: at,
                updated_at: at
              }))
          )
        })

        const fanOut = Effect.gen(function* () {
          const at = yield* Clock.currentTimeMillis
          const events = yield* outbox.claim({ now: at, limit: 100, worker: options.worker, leaseMillis })
          if (events.length === 0) return 0
          const deliveries = yield* Effect.forEach(events, (event) => deliveriesOf(event, at))
          // One delivery per (event, endpoint) whatever happens: a second fan-out after a crash adds nothing.
          yield* store.enqueue(deliveries.flat())
          yield* Effect.forEach(events, (event) => outbox.markDispatched(event.id), { discard: true })
          return events.length
        }).pipe(Effect.withSpan("WebhookDispatcher.fanOut"))

        /** What the endpoint's state should become after an attempt, if anything. */
        const afterAttempt = Effect.fn("WebhookDispatcher.afterAttempt")(function* (
          endpoint: WebhookEndpointRecord,
          outcome: "delivered" | "retry" | "gone",
          at: number
        ) {
          if (outcome === "delivered") {
            if (endpoint.failing_since !== undefined) {
              yield* endpoints.update(endpoint.nanoid, { unset: ["failing_since"] }).pipe(Effect.ignore)
            }
            return
          }
          // Disabled with `webhook.endpoint.disabled` in the same step: the team's other endpoints hear of it.
          const disable = (reason: "gone" | "failing") =>
            Effect.gen(function* () {
              const event = yield* makeDomainEvent({
                event_type: "webhook.endpoint.disabled",
                team_nanoid: endpoint.team_nanoid,
                data: {
                  nanoid: endpoint.nanoid,
                  name: endpoint.name,
                  url: endpoint.url,
                  reason,
                  failing_since: endpoint.failing_since ?? null,
                  disabled_at: isoOf(at)
                } satisfies WebhookEndpointEventPayload
              })
              yield* endpoints.transition(
                endpoint.nanoid,
                "active",
                "disabled",
                { disabled_at: isoOf(at), updated_at: isoOf(at) },
                [event]
              )
              yield* Effect.logWarning(
                `webhook endpoint ${endpoint.nanoid} disabled: ${reason === "gone" ? "the receiver answered 410 Gone" : "every delivery failed for 5 days"}`
              )
            }).pipe(
              Effect.provideService(IdGenerator, ids),
              Effect.provideService(Randomness, randomness),
              Effect.ignore
            )
          if (outcome === "gone") return yield* disable("gone")
          if (endpoint.failing_since === undefined) {
            yield* endpoints.update(endpoint.nanoid, { failing_since: isoOf(at) }).pipe(Effect.ignore)
          } else if (at - Date.parse(endpoint.failing_since) >= failingDisableAfterMillis) {
            yield* disable("failing")
          }
        })

        const attempt = Effect.fn("WebhookDispatcher.attempt")(function* (
          { delivery, lease }: ClaimedDelivery,
          endpoint: Option.Option<WebhookEndpointRecord>
        ) {
          const started = yield* Clock.currentTimeMillis
          if (endpoint._tag === "None" || endpoint.value.state !== "active") {
            // Nothing is sent to a deleted or disabled endpoint; enabling it again re-queues this delivery.
            yield* store.record(delivery.nanoid, lease.holder, { status: "failed", at: started })
            return
          }
          const secrets = yield* Effect.forEach(liveSecrets(endpoint.value, started), (s) => open(s.sealed))
          const body = JSON.stringify(renderEnvelope(delivery.event, delivery.version ?? endpoint.value.version))
          const result: AttemptResult = yield* sender.send({
            url: endpoint.value.url,
            id: delivery.nanoid,
            timestamp: Math.floor(started / 1000),
            body,
            secrets,
            timeoutMillis
          })
          const at = yield* Clock.currentTimeMillis
          const outcome = outcomeOf(result)
          const number = delivery.attempts + 1
          const firstAttemptAt = delivery.first_attempt_at ?? started
          const jitter = ((yield* randomness.bytes(1))[0] ?? 0) / 256
          const next =
            outcome === "retry"
              ? nextAttemptAt(schedule, number, {
                  firstAttemptAt,
                  failedAt: at,
                  jitter,
                  retryAfterMillis: result._tag === "Response" ? result.retryAfterMillis : undefined
                })
              : undefined
          yield* store.record(delivery.nanoid, lease.holder, {
            attempt: {
              delivery_nanoid: delivery.nanoid,
              number,
              at: started,
              status_code: result._tag === "Response" ? result.status : undefined,
              duration_ms: Math.round(result.durationMillis),
              error:
                result._tag === "NoResponse"
                  ? result.reason
                  : outcome === "delivered"
                    ? undefined
                    : `HTTP ${result.status}`
            },
            status: outcome === "delivered" ? "succeeded" : next === undefined ? "failed" : "pending",
            next_attempt_at: next,
            first_attempt_at: firstAttemptAt,
            at
          })
          yield* Metric.update(Metric.withAttributes(webhookAttempts, { outcome }), 1)
          yield* afterAttempt(endpoint.value, outcome, at)
        })

        const deliverDue = Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const claimed = yield* store.claimDue({ now, limit: batch, leaseMillis })
          // Each endpoint read once per batch.
          const ids = [...new Set(claimed.map((c) => c.delivery.webhook_nanoid))]
          const found = new Map(
            yield* Effect.forEach(ids, (id) =>
              Effect.map(Effect.option(endpoints.findById(id)), (e) => [id, e] as const)
            )
          )
          yield* Effect.forEach(
            claimed,
            (claim) => attempt(claim, found.get(claim.delivery.webhook_nanoid) ?? Option.none()),
            { concurrency: "unbounded", discard: true }
          )
          return claimed.length
        }).pipe(Effect.withSpan("WebhookDispatcher.deliverDue"))

        return WebhookDispatcher.of({ fanOut, deliverDue })
      })
    )

  /**
   * The dispatcher as a worker for the layer's lifetime: fan-out runs in a loop, delivery in `loops` (default 4), idle
   * for `idleMillis` (default 50 ms) when a pass found nothing. A failed pass is logged and the loop goes on.
   */
  static readonly worker = (options: DispatcherOptions) =>
    Layer.effectDiscard(
      Effect.gen(function* () {
        const dispatcher = yield* WebhookDispatcher
        const idle = Duration.millis(options.idleMillis ?? 50)
        // A pass that found work is followed at once; an idle one waits `idle`; a failing one backs off quietly.
        const loop = (name: string, pass: Effect.Effect<number>) =>
          repeatQuietly(`webhook ${name}`, Effect.repeat(pass, { while: (done) => done > 0 }), {
            every: idle,
            maxBackoff: Duration.seconds(30)
          }).pipe(Effect.forkScoped)
        yield* loop("fan-out", dispatcher.fanOut)
        for (let i = 0; i < (options.loops ?? 4); i++) yield* loop("delivery", dispatcher.deliverDue)
      })
    ).pipe(Layer.provideMerge(WebhookDispatcher.layer(options)))
}
