/**
 * Every request is answered within a bound (issue 14): a handler still running after it (a hung dependency, a body
 * that never arrives) is interrupted and the request answered 503 SERVICE_UNAVAILABLE with `Retry-After`. Interrupting
 * is safe where it lands: an idempotency claim is released on interruption, and execution keeps its own records.
 */
import { Context, Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { errorResponse } from "./ErrorEnvelope.ts"

/** How long a request may take, in milliseconds (`REQUEST_TIMEOUT_MS`, default 30 s). */
export class RequestTimeout extends Context.Reference<number>("@svc/adapters/http/server/RequestTimeout", {
  defaultValue: () => 30_000
}) {}

/** Seconds a client is asked to wait before retrying a request that timed out. */
const retryAfterSeconds = 5

/** Answers 503 with `Retry-After` when `app` runs longer than `RequestTimeout`. */
export const withRequestTimeout = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
  Effect.gen(function* () {
    const millis = yield* RequestTimeout
    return yield* Effect.timeoutOrElse(app, {
      duration: millis,
      orElse: () =>
        Effect.succeed(
          HttpServerResponse.setHeaders(
            errorResponse("SERVICE_UNAVAILABLE", `The request was not answered within ${millis} ms; retry later`),
            // The body may be unread: the connection is not reused.
            { "retry-after": String(retryAfterSeconds), connection: "close" }
          )
        )
    })
  })
