/**
 * The dispatcher's second step: due deliveries are claimed and each attempted once, signed with the endpoint's live
 * secrets; the outcome is recorded with the next attempt's time, and an endpoint that answers 410 or fails for five
 * days is disabled, with `webhook.endpoint.disabled` in the same step.
 */
import { Clock, Effect, Metric, Option } from "effect"
import { makeDomainEvent, renderEnvelope } from "../event/EventEnvelope.ts"
import type { WebhookEndpointEventPayload } from "../event/EventPayload.ts"
import { Randomness } from "../Randomness.ts"
import { isoOf } from "../Timestamp.ts"
import { withEvents } from "../UnitOfWork.ts"
import {
  type AttemptResult,
  failingDisableAfterMillis,
  nextAttemptAt,
  outcomeOf,
  type RetrySchedule
} from "./WebhookDelivery.ts"
import { liveSecrets, type WebhookEndpointRecord, type WebhookSecret } from "./WebhookEndpoint.ts"
import { type ClaimedDelivery, WebhookDeliveryStore, WebhookEndpointRepository } from "./WebhookRepository.ts"
import { WebhookSender } from "./WebhookSender.ts"

/** Delivery attempts, by outcome: `delivered`, `retry` (a failure to try again) or `gone` (410: disabled). */
export const webhookAttempts = Metric.counter("svc_webhook_delivery_attempts_total", {
  description: "Webhook delivery attempts, by outcome (delivered, retry, gone)",
  incremental: true
})

/** How deliveries are attempted. */
export interface DeliverySettings {
  readonly schedule: RetrySchedule
  readonly leaseMillis: number
  readonly batch: number
  readonly timeoutMillis: number
  /** A sealed secret opened (the dispatcher keeps them opened: an AES decryption per attempt buys nothing). */
  readonly open: (sealed: string) => Effect.Effect<WebhookSecret>
}

/** Disables the endpoint with `webhook.endpoint.disabled` in the same step: the team's other endpoints hear of it. */
const disableEndpoint = (endpoint: WebhookEndpointRecord, reason: "gone" | "failing", at: number) =>
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
    const disabled = { disabled_at: isoOf(at), updated_at: isoOf(at) }
    yield* withEvents(
      WebhookEndpointRepository.use((e) => e.transition(endpoint.nanoid, "active", "disabled", disabled)),
      () => [event]
    )
    yield* Effect.logWarning(
      `webhook endpoint ${endpoint.nanoid} disabled: ${reason === "gone" ? "the receiver answered 410 Gone" : "every delivery failed for 5 days"}`
    )
  }).pipe(Effect.ignore)

/** What the endpoint's state becomes after an attempt, if anything. */
const afterAttempt = Effect.fn("WebhookDispatcher.afterAttempt")(function* (
  endpoint: WebhookEndpointRecord,
  outcome: "delivered" | "retry" | "gone",
  at: number
) {
  const endpoints = yield* WebhookEndpointRepository
  if (outcome === "delivered") {
    if (endpoint.failing_since !== undefined) {
      yield* endpoints.update(endpoint.nanoid, { unset: ["failing_since"] }).pipe(Effect.ignore)
    }
    return
  }
  if (outcome === "gone") return yield* disableEndpoint(endpoint, "gone", at)
  if (endpoint.failing_since === undefined) {
    yield* endpoints.update(endpoint.nanoid, { failing_since: isoOf(at) }).pipe(Effect.ignore)
  } else if (at - Date.parse(endpoint.failing_since) >= failingDisableAfterMillis) {
    yield* disableEndpoint(endpoint, "failing", at)
  }
})

/** The attempt's row and the delivery's next state. */
const recordOf = (
  claimed: ClaimedDelivery,
  result: AttemptResult,
  times: { readonly started: number; readonly at: number; readonly firstAttemptAt: number },
  next: number | undefined
) => {
  const outcome = outcomeOf(result)
  const { delivery } = claimed
  return {
    attempt: {
      delivery_nanoid: delivery.nanoid,
      number: delivery.attempts + 1,
      at: times.started,
      status_code: result._tag === "Response" ? result.status : undefined,
      duration_ms: Math.round(result.durationMillis),
      error:
        result._tag === "NoResponse" ? result.reason : outcome === "delivered" ? undefined : `HTTP ${result.status}`,
      response_body: result._tag === "Response" ? result.body : undefined
    },
    status:
      outcome === "delivered"
        ? ("succeeded" as const)
        : next === undefined
          ? ("failed" as const)
          : ("pending" as const),
    next_attempt_at: next,
    first_attempt_at: times.firstAttemptAt,
    at: times.at
  }
}

/** One attempt of a claimed delivery to its endpoint (none to a deleted or disabled one: it fails, to be re-queued). */
const attempt = Effect.fn("WebhookDispatcher.attempt")(function* (
  settings: DeliverySettings,
  claimed: ClaimedDelivery,
  endpoint: Option.Option<WebhookEndpointRecord>
) {
  const { delivery, lease } = claimed
  const store = yield* WebhookDeliveryStore
  const started = yield* Clock.currentTimeMillis
  if (endpoint._tag === "None" || endpoint.value.state !== "active") {
    yield* store.record(delivery.nanoid, lease.token, { status: "failed", at: started })
    return
  }
  const secrets = yield* Effect.forEach(liveSecrets(endpoint.value, started), (s) => settings.open(s.sealed))
  const body = JSON.stringify(renderEnvelope(delivery.event, delivery.version ?? endpoint.value.version))
  const result: AttemptResult = yield* WebhookSender.use((sender) =>
    sender.send({
      url: endpoint.value.url,
      id: delivery.nanoid,
      timestamp: Math.floor(started / 1000),
      body,
      secrets,
      timeoutMillis: settings.timeoutMillis
    })
  )
  const at = yield* Clock.currentTimeMillis
  const outcome = outcomeOf(result)
  const firstAttemptAt = delivery.first_attempt_at ?? started
  const jitter = ((yield* Randomness.use((r) => r.bytes(1)))[0] ?? 0) / 256
  const next =
    outcome === "retry"
      ? nextAttemptAt(settings.schedule, delivery.attempts + 1, {
          firstAttemptAt,
          failedAt: at,
          jitter,
          retryAfterMillis: result._tag === "Response" ? result.retryAfterMillis : undefined
        })
      : undefined
  yield* store.record(delivery.nanoid, lease.token, recordOf(claimed, result, { started, at, firstAttemptAt }, next))
  yield* Metric.update(Metric.withAttributes(webhookAttempts, { outcome }), 1)
  yield* afterAttempt(endpoint.value, outcome, at)
})

/** Claims up to a batch of due deliveries and attempts each, concurrently; answers how many. */
export const deliverDue = (settings: DeliverySettings) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const claimed = yield* WebhookDeliveryStore.use((store) =>
      store.claimDue({ now, limit: settings.batch, leaseMillis: settings.leaseMillis })
    )
    // Each endpoint read once per batch.
    const ids = [...new Set(claimed.map((c) => c.delivery.webhook_nanoid))]
    const found = new Map(
      yield* Effect.forEach(ids, (id) =>
        Effect.map(Effect.option(WebhookEndpointRepository.use((e) => e.findById(id))), (e) => [id, e] as const)
      )
    )
    yield* Effect.forEach(
      claimed,
      (claim) => attempt(settings, claim, found.get(claim.delivery.webhook_nanoid) ?? Option.none()),
      { concurrency: "unbounded", discard: true }
    )
    return claimed.length
  }).pipe(Effect.withSpan("WebhookDispatcher.deliverDue"))
