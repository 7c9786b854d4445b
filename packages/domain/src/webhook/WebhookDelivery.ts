/**
 * Deliveries of events to endpoints: the retry schedule and what an attempt's outcome means (DESIGN §5).
 */
import { Schema } from "effect"
import { DeliveryId, EventId, WebhookId } from "../Ids.ts"
import { IsoTimestamp } from "../Timestamp.ts"

/** Delays before attempts 2 to 8: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
export const retryDelaysMillis = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000
] as const

/** Time allowed for one attempt. */
export const deliveryTimeoutMillis = 15_000

/** After this long of nothing but failures, an endpoint is disabled (trigger `failing`). */
export const failingDisableAfterMillis = 5 * 24 * 3_600_000

/**
 * When to try again after failed attempt number `attempt` (1-based), or `undefined` when attempts are exhausted.
 * `jitter` in [0, 1) spreads retries by up to ±10 % so endpoints recovering together are not hit together.
 */
export const nextAttemptAt = (attempt: number, failedAt: number, jitter: number): number | undefined => {
  const delay = retryDelaysMillis[attempt - 1]
  return delay === undefined ? undefined : failedAt + Math.round(delay * (0.9 + 0.2 * jitter))
}

/** What one attempt got back: an HTTP status, or no response at all (timeout, refused, TLS, ...). */
export type AttemptResult =
  | { readonly _tag: "Response"; readonly status: number; readonly durationMillis: number }
  | { readonly _tag: "NoResponse"; readonly reason: string; readonly durationMillis: number }

/** What to do after an attempt: done, retry later, or disable the endpoint (HTTP 410 Gone). */
export type AttemptOutcome = "delivered" | "retry" | "gone"

/** 2xx delivers; 410 disables the endpoint; anything else (redirects included: none are followed) retries. */
export const outcomeOf = (result: AttemptResult): AttemptOutcome => {
  if (result._tag === "NoResponse") return "retry"
  if (result.status >= 200 && result.status < 300) return "delivered"
  return result.status === 410 ? "gone" : "retry"
}

/** A delivery of one event to one endpoint, as queued. */
export const WebhookDelivery = Schema.Struct({
  nanoid: DeliveryId,
  event_nanoid: EventId,
  webhook_nanoid: WebhookId,
  status: Schema.Literals(["pending", "delivered", "failed"]),
  attempts: Schema.Int,
  next_attempt_at: Schema.optionalKey(IsoTimestamp),
  last_status: Schema.optionalKey(Schema.Int),
  last_error: Schema.optionalKey(Schema.String),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp
})
export type WebhookDelivery = typeof WebhookDelivery.Type
