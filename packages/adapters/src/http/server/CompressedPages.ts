/**
 * The pages and documents people and tools fetch whole (`/docs` is 3.5 MB, `/openapi.json`, the invite page): sent
 * compressed when the client asks (`Accept-Encoding`: br, else gzip, by node:zlib), and cached with a validator (a
 * strong `ETag` per representation; `If-None-Match` answers 304 without a body). `Cache-Control: no-cache`, unless
 * the route says otherwise (the invite page is `private`: it carries its link's token), lets a browser keep a copy
 * and ask each time whether it still holds (the docs change with a deployment, the invite page with the invite's
 * state). Compressing the same large body again is skipped: the last few compressed bodies are kept by their hash.
 */
import { createHash } from "node:crypto"
import { promisify } from "node:util"
import { brotliCompress, constants, gzip } from "node:zlib"
import { Effect } from "effect"
import { HttpBody, HttpServerRequest, HttpServerResponse } from "effect/http"

const brotli = promisify(brotliCompress)
const gzipped = promisify(gzip)

/** A coding the server sends. */
type Coding = "br" | "gzip"

/**
 * The coding to send for an `Accept-Encoding` value (RFC 9110 §12.5.3): br, then gzip, each unless refused with
 * `q=0`; `*` stands for any coding not named. `undefined` for the body as it is.
 */
export const codingFor = (acceptEncoding: string | undefined): Coding | undefined => {
  const weights = new Map<string, number>()
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [name = "", ...parameters] = part.split(";").map((piece) => piece.trim().toLowerCase())
    const q = parameters.find((parameter) => parameter.startsWith("q="))
    if (name !== "") weights.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0)
  }
  const weightOf = (coding: Coding) => weights.get(coding) ?? weights.get("*") ?? 0
  return (["br", "gzip"] as const).find((coding) => weightOf(coding) > 0)
}

/** Bodies this small are sent as they are: compressing them saves less than its headers cost. */
const minimumBytes = 1024

/** The compressed bodies kept, by their body's hash and coding (a few: `/docs`, `/openapi.json` and their codings). */
const kept = new Map<string, Uint8Array>()
const keptMax = 8

const compress = (body: Uint8Array, coding: Coding, hash: string): Effect.Effect<Uint8Array> => {
  const key = `${hash}:${coding}`
  const found = kept.get(key)
  if (found !== undefined) return Effect.succeed(found)
  return Effect.promise(() =>
    coding === "br"
      ? // Quality 5 (of 11): /docs' 3.5 MB to 0.81 MB in 0.7 s here, where 11 takes 38 s for 0.71 MB; off the
        // event loop either way (node:zlib's thread pool).
        brotli(body, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 5, [constants.BROTLI_PARAM_SIZE_HINT]: body.length }
        })
      : gzipped(body, { level: 9 })
  ).pipe(
    Effect.map((compressed) => {
      const bytes = new Uint8Array(compressed.buffer, compressed.byteOffset, compressed.byteLength)
      if (kept.size >= keptMax) kept.delete(kept.keys().next().value as string)
      kept.set(key, bytes)
      return bytes
    })
  )
}

/** Whether `If-None-Match` names `etag` (weak comparison, RFC 9110 §13.1.2), or is `*`. */
const matches = (ifNoneMatch: string | undefined, etag: string) =>
  (ifNoneMatch ?? "").split(",").some((tag) => {
    const trimmed = tag.trim()
    return trimmed === "*" || trimmed.replace(/^W\//, "") === etag
  })

/**
 * Wraps the app: a `GET` of one of `paths` answered with a body is compressed as the client asks, and a 200 gets an
 * `ETag` (and `Cache-Control: no-cache` unless it has one), or 304 when `If-None-Match` names it. Other requests pass
 * as they are.
 */
export const withCompressedPages =
  (paths: ReadonlySet<string>) =>
  <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
    Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const path = request.url.split("?")[0] ?? ""
      if (request.method !== "GET" || !paths.has(path)) return app
      return Effect.flatMap(app, (response) => {
        const body = response.body
        if (body._tag !== "Uint8Array" || response.headers["content-encoding"] !== undefined) {
          return Effect.succeed(response)
        }
        const coding = body.body.length < minimumBytes ? undefined : codingFor(request.headers["accept-encoding"])
        const hash = createHash("sha256").update(body.body).digest("base64url").slice(0, 32)
        const etag = `"${hash}${coding === undefined ? "" : `-${coding}`}"`
        const validated =
          response.status === 200
            ? { etag, "cache-control": response.headers["cache-control"] ?? "no-cache", vary: "Accept-Encoding" }
            : { vary: "Accept-Encoding" }
        if (response.status === 200 && matches(request.headers["if-none-match"], etag)) {
          return Effect.succeed(HttpServerResponse.empty({ status: 304, headers: validated }))
        }
        const answered = HttpServerResponse.setHeaders(response, validated)
        if (coding === undefined) return Effect.succeed(answered)
        return Effect.map(compress(body.body, coding, hash), (compressed) =>
          HttpServerResponse.setHeader(
            HttpServerResponse.setBody(answered, HttpBody.uint8Array(compressed, body.contentType)),
            "content-encoding",
            coding
          )
        )
      })
    })
