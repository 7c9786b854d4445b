/**
 * Rate limits (issue 14, docs/decisions/0035): token buckets per client IP on every route (but `/health` and
 * `/ready`, which load balancers poll), per user on requests with a valid bearer token (requests, and request bytes:
 * issue 18, docs/decisions/0058), and a stricter one per client
 * IP for sign-in (`GET /v2/auth/siwe`, `POST /v2/auth/verify`). A request over a limit is answered 429 RATE_LIMITED
 * with `Retry-After` (seconds) before anything else runs, so it changes nothing.
 *
 * The buckets live in this process's memory: with several API processes each enforces its own limits. Each set of
 * buckets holds at most `maxKeys` keys, the least recently seen evicted first (a full bucket is the same as none), so
 * a flood of addresses cannot grow memory.
 */
import { Clock, Context, Effect, Layer, Metric, Redacted } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { AccessTokens } from "../AccessTokens.ts"
import { errorResponse } from "./ErrorEnvelope.ts"
import { bearerCredential, VerifiedToken } from "./VerifiedToken.ts"

/** Requests per minute allowed for each kind of key; 0 disables that limit. */
export interface RateLimitSettings {
  /** Per client IP, every route but `/health` and `/ready` (`RATE_LIMIT_PER_IP`). */
  readonly perIp: number
  /** Per user, on requests carrying a valid token (`RATE_LIMIT_PER_USER`). */
  readonly perUser: number
  /**
   * Request bytes per user a minute (`RATE_LIMIT_BYTES_PER_USER`; a request counts its declared `Content-Length`), so
   * a user inside the request limit cannot make the server parse without end (0 disables; default off here).
   */
  readonly bytesPerUser?: number | undefined
  /** Per client IP, on the sign-in routes, on top of `perIp` (`RATE_LIMIT_SIGN_IN`). */
  readonly signIn: number
  /** Whether the client IP is read from `X-Forwarded-For` (set by a proxy we trust) rather than the socket. */
  readonly trustProxy: boolean
  /** The most keys one set of buckets remembers (default 10,000). */
  readonly maxKeys?: number | undefined
}

/** Generous enough for real use: a busy client or a few users behind one address stay well under them. */
export const defaultRateLimits: RateLimitSettings = {
  perIp: 1200,
  perUser: 600,
  // 32 MiB a minute: 32 of the largest bodies the server takes, far above any real client's need.
  bytesPerUser: 32 * 1024 * 1024,
  signIn: 30,
  trustProxy: false
}

/** No limits at all (tests that drive many requests from one address). */
export const noRateLimits: RateLimitSettings = { perIp: 0, perUser: 0, signIn: 0, trustProxy: false }

const minute = 60_000

/** What taking a token from a bucket gave: served, or refused with the seconds until a token is back. */
export type Take = { readonly _tag: "Allowed" } | { readonly _tag: "Refused"; readonly retryAfterSeconds: number }

/**
 * Token buckets of `perMinute` tokens, refilled continuously at `perMinute` a minute, one per key, at most `maxKeys`
 * of them. Time is given by the caller, so the buckets are plain data to test.
 */
export const makeBuckets = (perMinute: number, maxKeys: number) => {
  // Insertion order is recency order: a key taken from moves to the end, the first is the least recently seen.
  const buckets = new Map<string, { readonly tokens: number; readonly at: number }>()
  // Elapsed time times the rate, multiplied first: whole minutes give whole tokens, exactly.
  const tokensAt = (bucket: { readonly tokens: number; readonly at: number }, now: number) =>
    Math.min(perMinute, bucket.tokens + ((now - bucket.at) * perMinute) / minute)
  return {
    /** Takes `cost` tokens (default 1: a request; a byte count for the bytes budget). */
    take: (key: string, now: number, cost = 1): Take => {
      const bucket = buckets.get(key) ?? { tokens: perMinute, at: now }
      const tokens = tokensAt(bucket, now)
      buckets.delete(key)
      if (tokens < cost) {
        buckets.set(key, bucket)
        return {
          _tag: "Refused",
          retryAfterSeconds: Math.max(1, Math.ceil(((cost - tokens) * minute) / perMinute / 1000))
        }
      }
      buckets.set(key, { tokens: tokens - cost, at: now })
      // Idle keys are forgotten (a full bucket is the same as none), the least recently seen first, and always when
      // over the bound.
      for (const [oldest, entry] of buckets) {
        if (tokensAt(entry, now) < perMinute && buckets.size <= maxKeys) break
        buckets.delete(oldest)
      }
      return { _tag: "Allowed" }
    },
    /** How many keys are remembered. */
    size: () => buckets.size
  }
}

/** The buckets of one API process. */
export class RateLimits extends Context.Service<
  RateLimits,
  {
    readonly settings: RateLimitSettings
    readonly perIp: ReturnType<typeof makeBuckets> | undefined
    readonly perUser: ReturnType<typeof makeBuckets> | undefined
    readonly bytesPerUser: ReturnType<typeof makeBuckets> | undefined
    readonly signIn: ReturnType<typeof makeBuckets> | undefined
  }
>()("@svc/adapters/http/server/RateLimits") {
  /** Fresh buckets for `settings`. */
  static readonly layer = (settings: RateLimitSettings) =>
    Layer.sync(RateLimits, () => {
      const buckets = (perMinute: number) =>
        perMinute > 0 ? makeBuckets(perMinute, settings.maxKeys ?? 10_000) : undefined
      return RateLimits.of({
        settings,
        perIp: buckets(settings.perIp),
        perUser: buckets(settings.perUser),
        bytesPerUser: buckets(settings.bytesPerUser ?? 0),
        signIn: buckets(settings.signIn)
      })
    })
}

// Probes and the scraper: an orchestrator or Prometheus must see the process even while a client floods it.
const exempt = new Set(["/health", "/ready", "/metrics"])
const signInPaths = new Set(["/v2/auth/siwe", "/v2/auth/verify"])

/**
 * The client's address: the socket's peer, or with a trusted proxy the last `X-Forwarded-For` entry (the one our
 * proxy appended; earlier entries are the client's to write).
 */
const clientIp = (request: HttpServerRequest.HttpServerRequest, trustProxy: boolean) => {
  const forwarded = trustProxy ? request.headers["x-forwarded-for"]?.split(",").at(-1)?.trim() : undefined
  if (forwarded !== undefined && forwarded !== "") return forwarded
  return request.remoteAddress._tag === "Some" ? request.remoteAddress.value : "unknown"
}

/** Requests refused 429, by the limit that refused them. */
export const rateLimited = Metric.counter("svc_rate_limited_total", {
  description: "Requests refused 429 RATE_LIMITED, by limit (sign_in, ip, user, bytes)",
  incremental: true
})

const refused = (limit: "sign_in" | "ip" | "user" | "bytes", retryAfterSeconds: number) =>
  Effect.as(
    Metric.update(Metric.withAttributes(rateLimited, { limit }), 1),
    HttpServerResponse.setHeader(errorResponse("RATE_LIMITED"), "retry-after", String(retryAfterSeconds))
  )

/** Wraps the app with the rate limits; needs the buckets and the token verifier (for the per-user limit). */
export const withRateLimits = Effect.gen(function* () {
  const limits = yield* RateLimits
  const tokens = yield* AccessTokens
  return <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = request.url.split("?")[0] ?? ""
      if (exempt.has(path)) return yield* app
      const now = yield* Clock.currentTimeMillis
      const ip = clientIp(request, limits.settings.trustProxy)
      const signIn = signInPaths.has(path) ? limits.signIn?.take(ip, now) : undefined
      if (signIn?._tag === "Refused") return yield* refused("sign_in", signIn.retryAfterSeconds)
      const byIp = limits.perIp?.take(ip, now)
      if (byIp?._tag === "Refused") return yield* refused("ip", byIp.retryAfterSeconds)
      if (limits.perUser === undefined && limits.bytesPerUser === undefined) return yield* app
      const token = Redacted.value(yield* bearerCredential)
      if (token === "") return yield* app
      const verdict = yield* Effect.exit(tokens.verify(token))
      // Authentication inside reuses this verdict; an invalid token is refused there, limited by address only.
      const served = Effect.provideService(app, VerifiedToken, { token, verdict })
      if (verdict._tag === "Failure") return yield* served
      const byUser = limits.perUser?.take(verdict.value.sub, now)
      if (byUser?._tag === "Refused") return yield* refused("user", byUser.retryAfterSeconds)
      // The bytes it declares, before they are read: a flood of large bodies is refused before any is parsed.
      const declared = Number(request.headers["content-length"] ?? 0)
      const bytes =
        declared > 0
          ? limits.bytesPerUser?.take(verdict.value.sub, now, Number.isFinite(declared) ? declared : 0)
          : undefined
      return bytes?._tag === "Refused" ? yield* refused("bytes", bytes.retryAfterSeconds) : yield* served
    })
})
