/**
 * Calls to the API as the commands make them: through the typed client (derived from the HttpApi contract), keeping
 * the raw answer so `--json` prints exactly what the API said; every failure becomes a `CliFailure` with the API's
 * message and code.
 */
import { statusOfApiError } from "@svc/contract"
import { Effect, Schema } from "effect"
import type { HttpClientResponse } from "effect/http"
import { CliFailure, envelopeOf } from "./Failure.ts"

/** A decoded answer and the body as the API sent it. */
export interface Answer<A> {
  readonly value: A
  readonly text: string
}

const hintOf = (status: number | undefined) => (status === 401 ? "; sign in again with `svc login`" : "")

/** An answer with an error status: the API's envelope when it sent one. */
const failureOfResponse = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(
    Effect.orElseSucceed(response.text, () => ""),
    (text) => {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      const envelope = envelopeOf(body)
      const message = envelope?.data ?? (text.trim() === "" ? "the API answered without a body" : text.trim())
      return new CliFailure({
        message: `${message}${hintOf(response.status)}`,
        code: envelope?.error_code,
        status: response.status
      })
    }
  )

/** Any failure of a typed client call, as the user reads it. */
export const failureOf = (baseUrl: string, error: unknown): Effect.Effect<CliFailure> => {
  if (error instanceof CliFailure) return Effect.succeed(error)
  if (typeof error === "object" && error !== null) {
    const tagged = error as { _tag?: unknown; data?: unknown; error_code?: unknown; reason?: unknown }
    // A declared error status: the contract decoded the envelope already.
    const status = statusOfApiError(error)
    if (status !== undefined && typeof tagged.data === "string" && typeof tagged.error_code === "string") {
      return Effect.succeed(
        new CliFailure({ message: `${tagged.data}${hintOf(status)}`, code: tagged.error_code, status })
      )
    }
    if (tagged._tag === "HttpClientError" && typeof tagged.reason === "object" && tagged.reason !== null) {
      const reason = tagged.reason as { _tag: string; response?: HttpClientResponse.HttpClientResponse }
      if (reason.response !== undefined && reason.response.status >= 300) return failureOfResponse(reason.response)
      if (reason._tag === "TransportError" || reason._tag === "InvalidUrlError") {
        return Effect.succeed(new CliFailure({ message: `cannot reach the svc API at ${baseUrl}` }))
      }
      return Effect.succeed(new CliFailure({ message: `unexpected answer from ${baseUrl} (${reason._tag})` }))
    }
    if (Schema.isSchemaError(error)) {
      return Effect.succeed(new CliFailure({ message: `invalid request: ${error.message}` }))
    }
  }
  return Effect.succeed(new CliFailure({ message: `unexpected failure: ${String(error)}` }))
}

/**
 * Runs a typed client call made with `responseMode: "decoded-and-response"`, answering the decoded value and the raw
 * body (read once and kept by the response, so the decoding did not consume it).
 */
export const answer = <A, E, R>(
  baseUrl: string,
  call: Effect.Effect<readonly [A, HttpClientResponse.HttpClientResponse], E, R>
): Effect.Effect<Answer<A>, CliFailure, R> =>
  call.pipe(
    Effect.flatMap(([value, response]) => Effect.map(response.text, (text) => ({ value, text }))),
    Effect.catch((error) => Effect.flatMap(failureOf(baseUrl, error), Effect.fail))
  )
