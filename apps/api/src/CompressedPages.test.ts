/**
 * The documents and pages sent whole (issue 35): `/docs`, `/openapi.json` and the invite page come compressed (br or
 * gzip, as the client asks) and with a validator (`ETag`, 304 on `If-None-Match`); the icon browsers ask for is
 * served, and the invite page names its own. Read with node:http, which (unlike fetch) shows the bytes as sent.
 */
import { request } from "node:http"
import { brotliDecompressSync, gunzipSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { SmtpMailer } from "@svc/adapters/mail"
import { startTestSmtpServer, textOf } from "@svc/adapters/test/TestSmtpServer"
import { Effect, Redacted } from "effect"
import { call, seedTeam, signIn, startTestServerWith } from "../test/TestServer.ts"

/** A GET as sent on the wire: status, headers and the body's bytes, undecoded. */
const get = (url: string, headers: Record<string, string> = {}) =>
  Effect.callback<{ status: number; headers: Record<string, string | undefined>; body: Buffer }>((resume) => {
    request(url, { headers }, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resume(
          Effect.succeed({
            status: response.statusCode ?? 0,
            headers: response.headers as Record<string, string | undefined>,
            body: Buffer.concat(chunks)
          })
        )
      )
    }).end()
  })

/** Each coding of `url`: the bytes as they decode, the same whatever the coding, smaller compressed; then 304. */
const compressedAndValidated = (url: string) =>
  Effect.gen(function* () {
    const plain = yield* get(url)
    assert.strictEqual(plain.status, 200)
    assert.isUndefined(plain.headers["content-encoding"])
    assert.strictEqual(plain.headers.vary, "Accept-Encoding")
    const etags = new Set([plain.headers.etag])
    for (const [accept, coding, decode] of [
      ["gzip, deflate, br", "br", brotliDecompressSync],
      ["gzip;q=1, br;q=0", "gzip", gunzipSync],
      ["deflate, *;q=0.5", "br", brotliDecompressSync]
    ] as const) {
      const sent = yield* get(url, { "accept-encoding": accept })
      assert.strictEqual(sent.headers["content-encoding"], coding, accept)
      assert.isTrue(decode(sent.body).equals(plain.body), accept)
      assert.isBelow(sent.body.length, plain.body.length / 2, accept)
      assert.match(sent.headers.etag ?? "", /^"[\w-]+"$/)
      etags.add(sent.headers.etag)
      // The validator of what the client holds: 304 without a body, the same ETag.
      const again = yield* get(url, { "accept-encoding": accept, "if-none-match": `W/${sent.headers.etag}` })
      assert.strictEqual(again.status, 304, accept)
      assert.strictEqual(again.body.length, 0)
      assert.strictEqual(again.headers.etag, sent.headers.etag)
    }
    // One ETag per representation: the plain body and each coding.
    assert.strictEqual(etags.size, 3)
    assert.strictEqual((yield* get(url, { "if-none-match": '"another"' })).status, 200)
    return plain
  })

describe("documents and pages sent whole", () => {
  it.live("/docs and /openapi.json: compressed when asked, with an ETag, 304 when it still holds", () =>
    Effect.gen(function* () {
      const server = yield* startTestServerWith()
      const docs = yield* compressedAndValidated(`${server.baseUrl}/docs`)
      assert.strictEqual(docs.headers["cache-control"], "no-cache")
      assert.isAbove(docs.body.length, 1_000_000)
      const document = yield* compressedAndValidated(`${server.baseUrl}/openapi.json`)
      assert.strictEqual(JSON.parse(document.body.toString("utf8")).openapi, "3.1.0")
    }).pipe(Effect.scoped)
  )

  it.live("the invite page: compressed, validated, private to its browser; it names its icon, which is served", () =>
    Effect.gen(function* () {
      const smtp = yield* startTestSmtpServer
      const server = yield* startTestServerWith({
        mailer: SmtpMailer.layer({ url: Redacted.make(smtp.url), from: "svc <invites@svc.test>" })
      })
      const { teamId, members } = yield* seedTeam(server, ["team_admin"])
      const admin = yield* signIn(server, members[0]!.account)
      const created = yield* call(server, "POST", "/v2/invites", {
        token: admin,
        body: { nanoid: teamId, invites: [{ email: "ada@example.com" }], role: "team_employee" }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const [mail] = yield* smtp.waitFor(1)
      const link = /https?:\/\/\S+\/invites\/accept\?invite=in-[\w-]{12}&token=[0-9a-f]{64}/.exec(textOf(mail!))?.[0]
      assert.isDefined(link)
      const page = yield* compressedAndValidated(link!)
      assert.strictEqual(page.headers["cache-control"], "private, no-cache")
      assert.include(page.body.toString("utf8"), '<link rel="icon" href="data:image/svg+xml,')
      // An unknown link is still compressed, never kept.
      const unknown = yield* get(link!.replace(/token=\w+/, `token=${"0".repeat(64)}`), { "accept-encoding": "gzip" })
      assert.deepInclude(unknown, { status: 404 })
      assert.strictEqual(unknown.headers["content-encoding"], "gzip")
      assert.strictEqual(unknown.headers["cache-control"], "no-store")
      assert.isUndefined(unknown.headers.etag)

      const icon = yield* get(`${server.baseUrl}/favicon.ico`)
      assert.strictEqual(icon.status, 200)
      assert.strictEqual(icon.headers["content-type"], "image/svg+xml")
      assert.match(icon.body.toString("utf8"), /^<svg /)
    }).pipe(Effect.scoped)
  )
})
