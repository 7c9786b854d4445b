/**
 * Every answer of the server in the contract's shape (SPEC §1, §7), whatever went wrong and wherever: a schema error in
 * the path (404 INVALID_ID), query or body (400), malformed JSON (400 INVALID_JSON), a wrong content type (415), a body
 * over the limit (413), an unknown route (404), an unavailable dependency (503 with `Retry-After`) and any unexpected
 * failure (500). Each response carries `x-request-id`; a 500 names it in the body too, and its details go to the log
 * only.
 */
import { randomUUID } from "node:crypto"
import { ErrorCatalog, type ErrorCode, errorBody } from "@svc/domain/errors"
import { unknownEventTypeMessage } from "@svc/domain/event"
import { ByteSize, Cause, Context, Effect } from "effect"
import { HttpIncomingMessage, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApiError } from "effect/http-api"
import { isUnavailable, retryAfterSeconds } from "./Unavailable.ts"

/** The largest request body accepted, in bytes (1 MiB). */
export const maxBodyBytes = 1024 * 1024

/** The header naming the request in responses and logs. */
export const requestIdHeader = "x-request-id"

/** A JSON error response in the contract's shape. */
export const errorResponse = (code: ErrorCode, message?: string) =>
  HttpServerResponse.jsonUnsafe(errorBody(code, message), { status: ErrorCatalog[code].status })

const truncate = (text: string, max = 500) => (text.length > max ? `${text.slice(0, max)}...` : text)

const isJsonResponse = (response: HttpServerResponse.HttpServerResponse) => {
  const type = response.body._tag === "Empty" ? undefined : response.body.contentType
  return type?.startsWith("application/json") === true
}

/** A page for people (the invite page's "not found"), which keeps its HTML. */
const isPage = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag !== "Empty" && response.body.contentType?.startsWith("text/html") === true

/** The code for a non-JSON error response a lower layer produced (415 text, 413 empty, ...). */
const codeForStatus = (status: number): ErrorCode => {
  switch (status) {
    case 400:
      return "VALIDATION_ERROR"
    case 401:
      return "UNAUTHORIZED"
    case 403:
      return "FORBIDDEN"
    case 404:
      return "ROUTE_NOT_FOUND"
    case 405:
      return "METHOD_NOT_ALLOWED"
    case 413:
      return "PAYLOAD_TOO_LARGE"
    case 415:
      return "UNSUPPORTED_MEDIA_TYPE"
    default:
      return "INTERNAL_ERROR"
  }
}

const schemaErrorResponse = (error: HttpApiError.HttpApiSchemaError) => {
  const detail = error.cause instanceof Error ? error.cause.message : String(error.cause)
  switch (error.kind) {
    case "Params":
      return errorResponse("INVALID_ID", truncate(`Invalid path: ${detail}`))
    case "Payload":
      if (detail.includes("Expected a valid JSON body")) return errorResponse("INVALID_JSON")
      if (detail.includes(unknownEventTypeMessage)) {
        return errorResponse("INVALID_EVENT_TYPE", truncate(`Invalid body: ${detail}`))
      }
      return errorResponse("VALIDATION_ERROR", truncate(`Invalid body: ${detail}`))
    case "Query":
      return errorResponse("VALIDATION_ERROR", truncate(`Invalid query: ${detail}`))
    case "Headers":
      return errorResponse("VALIDATION_ERROR", truncate(`Invalid headers: ${detail}`))
    default:
      return undefined
  }
}

const hasReason = (u: unknown): u is { readonly _tag: string; readonly reason: { readonly _tag: string } } =>
  typeof u === "object" && u !== null && "reason" in u && typeof (u as { reason: unknown }).reason === "object"

const isChainAbsent = (u: unknown) =>
  typeof u === "object" && u !== null && (u as { readonly _tag?: unknown })._tag === "ChainAbsent"

/** The response for a failure cause, or `undefined` when it is unexpected (a 500). */
const expectedResponse = (cause: Cause.Cause<unknown>) => {
  for (const reason of cause.reasons) {
    const value = reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined
    if (HttpApiError.HttpApiSchemaError.is(value)) {
      const response = schemaErrorResponse(value)
      if (response !== undefined) return response
    }
    if (HttpApiError.HttpApiPayloadTooLarge.is(value)) return errorResponse("PAYLOAD_TOO_LARGE")
    // The deployment has no chain (`ChainGateway.layerAbsent`): what needed it is not served here.
    if (isChainAbsent(value)) return errorResponse("NOT_IMPLEMENTED", "This deployment has no chain to settle on")
    if (hasReason(value)) {
      const tag = value.reason._tag
      if (tag === "RouteNotFound") return errorResponse("ROUTE_NOT_FOUND")
      if (tag === "RequestParseError") {
        const tooLarge = (value.reason as { readonly reason?: string }).reason === "BodyTooLarge"
        return tooLarge ? errorResponse("PAYLOAD_TOO_LARGE") : errorResponse("INVALID_JSON")
      }
    }
  }
  return undefined
}

/** Whether the failure is a dependency's outage (the chain, the database): a 503, not a 500. */
const isOutage = (cause: Cause.Cause<unknown>) =>
  cause.reasons.some((reason) =>
    isUnavailable(reason._tag === "Fail" ? reason.error : reason._tag === "Die" ? reason.defect : undefined)
  )

/** The id of the request being served (`x-request-id`). */
export class RequestId extends Context.Reference<string>("@svc/adapters/http/server/RequestId", {
  defaultValue: () => "req_unknown"
}) {}

/**
 * Limits the request body to `maxBodyBytes` for everything inside `app`: a larger declared `content-length` answers
 * 413 at once, and reading a longer body (chunked, so no length) fails with `BodyTooLarge`, which the envelope answers
 * 413. Anything that reads the body (the handlers, the idempotency fingerprint) must run inside it; the default is
 * unlimited.
 */
export const withBodyLimit = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const length = Number(request.headers["content-length"] ?? "0")
    if (Number.isFinite(length) && length > maxBodyBytes) {
      return errorResponse("PAYLOAD_TOO_LARGE", `The request body is larger than ${maxBodyBytes} bytes`)
    }
    return yield* Effect.provideService(app, HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes))
  })

/** Turns every failure of `app` into an error response in the contract's shape, and limits the body size. */
export const withErrorEnvelope = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const requestId = yield* RequestId
    return yield* withBodyLimit(app).pipe(
      Effect.map((response) =>
        response.status >= 400 && !isJsonResponse(response) && !isPage(response)
          ? errorResponse(codeForStatus(response.status))
          : response
      ),
      Effect.catchCause((cause) => {
        if (Cause.hasInterruptsOnly(cause)) return Effect.failCause(cause as Cause.Cause<never>)
        const expected = expectedResponse(cause)
        if (expected !== undefined) return Effect.succeed(expected)
        if (isOutage(cause)) {
          return Effect.logWarning("a dependency is unavailable", cause).pipe(
            Effect.annotateLogs({
              request_id: requestId,
              method: request.method,
              path: request.url.split("?")[0] ?? ""
            }),
            Effect.as(errorResponse("SERVICE_UNAVAILABLE"))
          )
        }
        return Effect.logError("unexpected failure", cause).pipe(
          Effect.annotateLogs({ request_id: requestId, method: request.method, path: request.url.split("?")[0] ?? "" }),
          Effect.as(errorResponse("INTERNAL_ERROR", `Something went wrong on our side (request id ${requestId})`))
        )
      }),
      // Every 503 (an outage, whether a use case failed with it or died of it) says when to come back.
      Effect.map((response) =>
        response.status === 503 && response.headers["retry-after"] === undefined
          ? HttpServerResponse.setHeader(response, "retry-after", String(retryAfterSeconds))
          : response
      )
    )
  })

/** Names the request: a fresh `RequestId` for everything inside, echoed in the `x-request-id` response header. */
export const withRequestId = <E, R>(
  app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
): Effect.Effect<HttpServerResponse.HttpServerResponse, never, R | HttpServerRequest.HttpServerRequest> =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    // A caller's own id, when well formed, follows the request from its load balancer to our logs (issue 22).
    const given = request.headers[requestIdHeader]
    const requestId =
      given !== undefined && wellFormedRequestId.test(given) ? given : `req_${randomUUID().replaceAll("-", "")}`
    // The router drops `;params` from a path segment: a path that carries them names no route of ours.
    const path = request.url.split("?")[0] ?? ""
    const served = path.includes(";") ? Effect.succeed(errorResponse("ROUTE_NOT_FOUND")) : app
    return yield* withErrorEnvelope(served).pipe(
      Effect.map((response) =>
        // A refused body is left unread on the socket: say the connection closes, so a keep-alive client opens a new
        // one for its next request instead of meeting a dropped socket.
        HttpServerResponse.setHeaders(
          withRequestIdInBody(response, requestId),
          response.status === 413
            ? { [requestIdHeader]: requestId, connection: "close" }
            : { [requestIdHeader]: requestId }
        )
      ),
      Effect.provideService(RequestId, requestId),
      Effect.annotateLogs({ request_id: requestId })
    )
  })

/** A caller's `X-Request-Id` we keep: 1 to 128 characters a log line and a header carry safely. */
export const wellFormedRequestId = /^[A-Za-z0-9._:@/+=-]{1,128}$/

/** An error envelope with `request_id` in it (beyond the spec); any other answer as it is. */
const withRequestIdInBody = (response: HttpServerResponse.HttpServerResponse, requestId: string) => {
  if (response.status < 400 || !isJsonResponse(response)) return response
  const sent = response.body
  try {
    const body = (
      sent._tag === "Uint8Array"
        ? JSON.parse(new TextDecoder().decode(sent.body))
        : sent._tag === "Raw"
          ? typeof sent.body === "string"
            ? JSON.parse(sent.body)
            : sent.body
          : undefined
    ) as Record<string, unknown> | undefined
    if (body === undefined || body === null || typeof body !== "object") return response
    if (body.success !== false || typeof body.error_code !== "string") return response
    return HttpServerResponse.jsonUnsafe(
      { ...body, request_id: requestId },
      {
        status: response.status,
        headers: response.headers
      }
    )
  } catch {
    return response
  }
}
