/**
 * The webhook sender on Node's HTTP client: signs each attempt (`WebhookSignature.ts`), POSTs it over keep-alive
 * connections with no redirect followed, checks the address the host resolves to against `WebhookUrlPolicy` at each
 * attempt (so a name that later resolves to a private or link-local address is refused: DNS rebinding), gives up
 * after the timeout (the answer's body included), and reads at most `maxResponseBytes` of the answer, keeping its
 * first `keptResponseBytes` as text for the delivery log. The body is the receiver's: it is kept, never logged.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import {
  type AttemptResult,
  addressRefusal,
  keptResponseBytes,
  maxResponseBytes,
  type OutgoingDelivery,
  type ResponseBody,
  urlRefusal,
  WebhookSender,
  WebhookUrlPolicy,
  type WebhookUrlRules
} from "@svc/domain/webhook"
import { Effect, Layer, Option } from "effect"
import { HttpTraceContext } from "effect/http"
import { signatureHeaders } from "./WebhookSignature.ts"

/** `Retry-After` (seconds or an HTTP date) in ms from `now`, if it says anything. */
export const retryAfterMillis = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000
  const at = Date.parse(value)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * The kept start of a body as text: UTF-8 with bytes that are not replaced (U+FFFD), as the receiver sent them
 * otherwise (a byte-order mark included). A body cut short is decoded as a stream that has not ended, so a character
 * the cut splits is dropped rather than shown as a replacement.
 */
export const responseBodyOf = (kept: Uint8Array, truncated: boolean): ResponseBody => ({
  text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(kept, { stream: truncated }),
  truncated
})

/** How a host name becomes addresses: the system resolver, or a fixed table in tests. */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<LookupAddress>>

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error === null ? resolve(addresses) : reject(error)))
  )

/** A lookup for Node's HTTP client that refuses addresses the rules forbid. */
const checkedLookup =
  (rules: WebhookUrlRules, resolver: Resolver): LookupFunction =>
  (hostname, options, callback) => {
    resolver(hostname).then(
      (addresses) => {
        const refused = addresses.map((a) => addressRefusal(a.address, rules)).find((r) => r !== undefined)
        if (refused !== undefined)
          return callback(Object.assign(new Error(refused), { code: "EREFUSED_ADDRESS" }), "", 4)
        const first = addresses[0]
        if (first === undefined) return callback(new Error(`${hostname} has no address`), "", 4)
        // Node asks for every address when it may try several (autoSelectFamily); else for one.
        if ((options as { all?: boolean }).all === true) {
          return (callback as never as (e: null, a: ReadonlyArray<LookupAddress>) => void)(null, addresses)
        }
        return callback(null, first.address, first.family)
      },
      (error: NodeJS.ErrnoException) => callback(error, "", 4)
    )
  }

/** Sends one attempt; every failure is a `NoResponse`. */
const sendWith = (
  rules: WebhookUrlRules,
  resolver: Resolver,
  agents: { readonly http: http.Agent; readonly https: https.Agent },
  delivery: OutgoingDelivery,
  trace: Readonly<Record<string, string>>
): Promise<AttemptResult> =>
  new Promise((resolve) => {
    const started = performance.now()
    const elapsed = () => performance.now() - started
    const noResponse = (reason: string) => resolve({ _tag: "NoResponse", reason, durationMillis: elapsed() })
    const refusal = urlRefusal(delivery.url, rules)
    if (refusal !== undefined) return noResponse(refusal)
    const url = new URL(delivery.url)
    const secure = url.protocol === "https:"
    const headers = {
      ...signatureHeaders(delivery),
      ...trace,
      "content-length": String(Buffer.byteLength(delivery.body))
    }
    let settled = false
    // The status of an answer whose body is still coming: the timer runs on until the body ends.
    let answered: number | undefined
    const settle = (result: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      result()
    }
    const request = (secure ? https : http).request(
      url,
      { method: "POST", headers, agent: secure ? agents.https : agents.http, lookup: checkedLookup(rules, resolver) },
      (response) => {
        answered = response.statusCode ?? 0
        const kept: Array<Buffer> = []
        let read = 0
        let ended = false
        const done = () =>
          settle(() => {
            const start = Buffer.concat(kept).subarray(0, keptResponseBytes)
            resolve({
              _tag: "Response",
              status: response.statusCode ?? 0,
              durationMillis: elapsed(),
              body: responseBodyOf(start, !ended || read > keptResponseBytes),
              retryAfterMillis:
                response.statusCode === 429 || response.statusCode === 503
                  ? retryAfterMillis(response.headers["retry-after"], Date.now())
                  : undefined
            })
          })
        response.on("data", (chunk: Buffer) => {
          if (read < keptResponseBytes) kept.push(chunk)
          read += chunk.length
          // Enough: the rest of a huge answer is dropped with its connection.
          if (read > maxResponseBytes) {
            done()
            response.destroy()
          }
        })
        response.on("end", () => {
          ended = true
          done()
        })
        response.on("error", done)
        response.on("close", done)
      }
    )
    const timer = setTimeout(() => {
      // An answer is whole or it is none: a body that does not end in time fails the attempt as a silence does.
      const late = answered === undefined ? "no answer" : `HTTP ${answered}, but its body did not end`
      request.destroy(new Error(`${late} within ${delivery.timeoutMillis} ms`))
    }, delivery.timeoutMillis)
    request.on("error", (error: NodeJS.ErrnoException) => settle(() => noResponse(error.message || String(error.code))))
    request.end(delivery.body)
  })

/** The sender resolving names with `resolver`, its keep-alive connections closed with the layer. */
export const layerWith = (resolver: Resolver) =>
  Layer.effect(
    WebhookSender,
    Effect.gen(function* () {
      const rules = yield* WebhookUrlPolicy
      const agents = yield* Effect.acquireRelease(
        Effect.sync(() => ({
          http: new http.Agent({ keepAlive: true, maxSockets: 128 }),
          https: new https.Agent({ keepAlive: true, maxSockets: 128 })
        })),
        (a) =>
          Effect.sync(() => {
            a.http.destroy()
            a.https.destroy()
          })
      )
      return WebhookSender.of({
        send: (delivery) =>
          // With tracing on, the attempt's span goes with it (W3C `traceparent`), as Effect's own HTTP client does.
          Effect.flatMap(Effect.option(Effect.currentSpan), (span) =>
            Effect.promise(() =>
              sendWith(
                rules,
                resolver,
                agents,
                delivery,
                Option.isSome(span) ? { traceparent: HttpTraceContext.toHeaders(span.value).traceparent ?? "" } : {}
              )
            )
          )
      })
    })
  )

/** The sender on the system resolver. */
export const layer = layerWith(systemResolver)
