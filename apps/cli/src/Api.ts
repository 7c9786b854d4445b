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

/** A page of a cursor-paged list, as the API answers it. */
interface CursorPage<Item> {
  readonly data: { readonly items: ReadonlyArray<Item>; readonly next_cursor?: string | null | undefined }
}

/**
 * Every page of a cursor-paged list as one answer: the items of all pages, in order, in the last page's body (whose
 * `next_cursor` is null), so `--json` prints the API's `data` whole, its other fields included. One page is its
 * body exactly as the API sent it; the items of several are the API's own JSON, not a re-encoding of them.
 */
export const allPages = <Item, A extends CursorPage<Item>>(
  page: (cursor: string | undefined) => Effect.Effect<Answer<A>, CliFailure>
): Effect.Effect<Answer<A>, CliFailure> =>
  Effect.gen(function* () {
    const pages: Array<Answer<A>> = []
    let cursor: string | undefined
    do {
      const next = yield* page(cursor)
      pages.push(next)
      cursor = next.value.data.next_cursor ?? undefined
    } while (cursor !== undefined)
    const last = pages[pages.length - 1] as Answer<A>
    if (pages.length === 1) return last
    const body = JSON.parse(last.text) as { data: { items: Array<unknown> } }
    body.data.items = pages.flatMap((answered) => (JSON.parse(answered.text) as typeof body).data.items)
    const items = pages.flatMap((answered) => answered.value.data.items)
    return { value: { ...last.value, data: { ...last.value.data, items } }, text: JSON.stringify(body) }
  })
