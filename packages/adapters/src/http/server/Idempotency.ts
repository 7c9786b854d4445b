/**
 * `Idempotency-Key` on POST, PUT and DELETE: the first request with a key runs and its answer is kept 24 hours; the
 * same key with the same body replays it (`idempotent-replayed: true`), with another body is refused (422
 * IDEMPOTENCY_KEY_REUSED), and while the first still runs is refused (409 IDEMPOTENCY_IN_PROGRESS). Keys are scoped
 * to the caller (the token's subject): requests without a valid token pass through and fail authentication as usual.
 * Answers of 500 and above are not kept, so a retry runs again. The body is read under the same size limit as the
 * handlers (`withBodyLimit`), and a body that cannot be read (too large, cut off) claims nothing: the request runs as
 * without a key and the handler answers the error (413 for a body over the limit). The token is parsed as the
 * security layer parses it and verified once: authentication inside reuses the verdict (`VerifiedToken`). A kept
 * answer holds no secret (`keptBody`).
 */
import { createHash } from "node:crypto"
import { IdempotencyStore } from "@svc/domain/idempotency"
import { Clock, Effect, Redacted } from "effect"
import { HttpServerRequest, HttpServerResponse } from "effect/http"
import { AccessTokens } from "../AccessTokens.ts"
import { errorResponse, withBodyLimit } from "./ErrorEnvelope.ts"
import { bearerCredential, VerifiedToken } from "./VerifiedToken.ts"

/**
 * The answer as it is kept, so the store never holds a secret (issue 18, item 2): a webhook's signing secret
 * (`data.secret`, on creation and rotation) is left out, and a replay answers without it (docs/webhooks.md: rotate
 * again for a new one); an answer holding a token (`data.jwt`, a sign-in) is not kept at all (`undefined`), so the
 * same key runs again.
 */
export const keptBody = (body: string): string | undefined => {
  try {
    const parsed = JSON.parse(body) as { data?: unknown }
    const data = parsed.data
    if (typeof data !== "object" || data === null || Array.isArray(data)) return body
    if ("jwt" in data) return undefined
    if (!("secret" in data)) return body
    delete (data as Record<string, unknown>).secret
    return JSON.stringify(parsed)
  } catch {
    return body
  }
}

/** The request header carrying the key. */
export const idempotencyKeyHeader = "idempotency-key"

/** Wraps the app with idempotency-key handling; needs the token verifier and the key store. */
export const withIdempotency = Effect.gen(function* () {
  const tokens = yield* AccessTokens
  const store = yield* IdempotencyStore
  return <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
    withBodyLimit(
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = request.headers[idempotencyKeyHeader]
        if (key === undefined || !["POST", "PUT", "DELETE"].includes(request.method)) return yield* app
        if (key.length < 1 || key.length > 255) {
          return errorResponse("VALIDATION_ERROR", "The Idempotency-Key header must be 1 to 255 characters")
        }
        const token = Redacted.value(yield* bearerCredential)
        if (token === "") return yield* app
        const verdict = yield* Effect.exit(tokens.verify(token))
        // Authentication inside reuses this verdict rather than verifying the token again.
        const served = Effect.provideService(app, VerifiedToken, { token, verdict })
        if (verdict._tag === "Failure") return yield* served
        // The read is cached: a failure here fails the handler's read the same way, inside the error envelope.
        const read = yield* Effect.result(request.text)
        if (read._tag === "Failure") return yield* served
        const body = read.success
        const bodyHash = createHash("sha256").update(`${request.method} ${request.url}\n${body}`).digest("hex")
        const id = { scope: verdict.value.sub, key }
        const now = yield* Clock.currentTimeMillis
        const claim = yield* store.claim(id, bodyHash, now)
        switch (claim._tag) {
          case "Running":
            return errorResponse("IDEMPOTENCY_IN_PROGRESS")
          case "Mismatch":
            return errorResponse("IDEMPOTENCY_KEY_REUSED")
          case "Completed":
            return HttpServerResponse.text(claim.response.body, {
              status: claim.response.status,
              contentType: claim.response.contentType,
              headers: { "idempotent-replayed": "true" }
            })
          case "Claimed":
            break
        }
        const held = claim.token
        return yield* served.pipe(
          Effect.onExit((exit) => {
            if (exit._tag === "Failure") return store.release(id, held)
            const response = exit.value
            // A 202 (a payment in flight, decision 0061) is not the request's last word: the same key runs it again.
            if (response.status >= 500 || response.status === 202 || response.body._tag !== "Uint8Array") {
              return store.release(id, held)
            }
            const kept = keptBody(new TextDecoder().decode(response.body.body))
            if (kept === undefined) return store.release(id, held)
            const stored = { status: response.status, body: kept, contentType: response.body.contentType }
            return Effect.flatMap(Clock.currentTimeMillis, (done) => store.complete(id, held, stored, done))
          })
        )
      })
    )
})
