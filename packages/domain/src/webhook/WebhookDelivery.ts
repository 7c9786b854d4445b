/**
 * Deliveries of events to endpoints: the records of the delivery log, the retry schedule, and what an attempt's
 * outcome means (DESIGN §5).
 */
import type { DomainEvent, PayloadVersion } from "../event/EventEnvelope.ts"
import type { DeliveryId, TeamId, WebhookId } from "../Ids.ts"

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

/** When to retry a failed delivery, and when to give up. */
export interface RetrySchedule {
  /** Delays after the first failures, in order. */
  readonly delays: ReadonlyArray<number>
  /** The delay once `delays` are used up. */
  readonly thenEvery: number
  /** No attempt is scheduled once an attempt failed this long after the first one. */
  readonly giveUpAfter: number
}

/** DESIGN §5: the delays above, then every 12 h until 3 days have passed since the first attempt. */
export const defaultRetrySchedule: RetrySchedule = {
  delays: retryDelaysMillis,
  thenEvery: 12 * 3_600_000,
  giveUpAfter: 3 * 24 * 3_600_000
}

/** Time allowed for one attempt. */
export const deliveryTimeoutMillis = 15_000

/** The most of a response body read (the rest is dropped, so a huge answer cannot stall the dispatcher). */
export const maxResponseBytes = 64 * 1024

/** The start of a response body kept with its attempt, for the log (Svix and Stripe show a cut body too). */
export const keptResponseBytes = 2 * 1024

/** After this long of nothing but failures, an endpoint is disabled (trigger `failing`). */
export const failingDisableAfterMillis = 5 * 24 * 3_600_000

/**
 * When to try again after failed attempt number `attempt` (1-based) at `failedAt`, the first attempt having been at
 * `firstAttemptAt`; `undefined` once `giveUpAfter` has passed. `jitter` in [0, 1) spreads the delay by up to ±10 %,
 * so endpoints recovering together are not hit together. A `Retry-After` the receiver sent (429, 503) replaces the
 * delay, within the schedule: never longer than `thenEvery`, and never past the give-up time.
 */
export const nextAttemptAt = (
  schedule: RetrySchedule,
  attempt: number,
  timing: {
    readonly firstAttemptAt: number
    readonly failedAt: number
    readonly jitter: number
    readonly retryAfterMillis?: number | undefined
  }
): number | undefined => {
  if (timing.failedAt - timing.firstAttemptAt >= schedule.giveUpAfter) return undefined
  const delay = schedule.delays[attempt - 1] ?? schedule.thenEvery
  const spread = Math.round(delay * (0.9 + 0.2 * timing.jitter))
  if (timing.retryAfterMillis === undefined) return timing.failedAt + spread
  return timing.failedAt + Math.min(Math.max(timing.retryAfterMillis, 0), schedule.thenEvery)
}

/**
 * The start of a response body, as the receiver sent it: its first `keptResponseBytes` decoded as UTF-8, bytes that
 * are not UTF-8 replaced (U+FFFD), a character cut at the bound dropped.
 */
export interface ResponseBody {
  readonly text: string
  /** `text` is less than the body: the body went past the bound, or its connection closed before its end. */
  readonly truncated: boolean
}

/** What one attempt got back: an HTTP status, or no response at all (timeout, refused, TLS, refused address, ...). */
export type AttemptResult =
  | {
      readonly _tag: "Response"
      readonly status: number
      readonly durationMillis: number
      /** The start of the body (empty when there was none). */
      readonly body: ResponseBody
      /** `Retry-After` of a 429 or 503, in ms. */
      readonly retryAfterMillis?: number | undefined
    }
  | { readonly _tag: "NoResponse"; readonly reason: string; readonly durationMillis: number }

/** What to do after an attempt: done, retry later, or disable the endpoint (HTTP 410 Gone). */
export type AttemptOutcome = "delivered" | "retry" | "gone"

/** 2xx delivers; 410 disables the endpoint; anything else (redirects included: none are followed) retries. */
export const outcomeOf = (result: AttemptResult): AttemptOutcome => {
  if (result._tag === "NoResponse") return "retry"
  if (result.status >= 200 && result.status < 300) return "delivered"
  return result.status === 410 ? "gone" : "retry"
}

/** Where a delivery stands: waiting for (another) attempt, delivered, or given up. */
export type DeliveryStatus = "pending" | "succeeded" | "failed"

/** A delivery of one event to one endpoint (one per event and endpoint). Times are epoch ms. */
export interface WebhookDelivery {
  readonly nanoid: DeliveryId
  readonly webhook_nanoid: WebhookId
  readonly team_nanoid: TeamId
  /** The event as recorded; rendered in the endpoint's payload major at each attempt. */
  readonly event: DomainEvent
  /** The payload major to render, when not the endpoint's (test deliveries name their own). */
  readonly version?: PayloadVersion | undefined
  readonly status: DeliveryStatus
  /** Attempts made so far. */
  readonly attempts: number
  /** When the next attempt is due (pending deliveries). */
  readonly next_attempt_at?: number | undefined
  readonly first_attempt_at?: number | undefined
  readonly created_at: number
  readonly updated_at: number
}

/** One attempt of a delivery, as the log shows it. */
export interface DeliveryAttempt {
  readonly delivery_nanoid: DeliveryId
  /** 1-based. */
  readonly number: number
  readonly at: number
  readonly status_code?: number | undefined
  readonly duration_ms: number
  readonly error?: string | undefined
  /** The start of the receiver's answer; none when there was no response (or before bodies were kept). */
  readonly response_body?: ResponseBody | undefined
}

/** A delivery with its attempts, oldest attempt first. */
export interface LoggedDelivery extends WebhookDelivery {
  readonly attempt_log: ReadonlyArray<DeliveryAttempt>
}
