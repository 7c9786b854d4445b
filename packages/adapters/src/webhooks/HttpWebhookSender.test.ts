/**
 * The HTTP sender against real local servers: signatures, no redirects, the timeout, the 64 KiB read limit, the
 * start of the answer's body kept as text, `Retry-After`, refused addresses; and sealed secrets.
 */
import { createHmac } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import {
  type AttemptResult,
  keptResponseBytes,
  maxResponseBytes,
  WebhookSecretBox as SecretBox,
  WebhookSender,
  WebhookUrlPolicy
} from "@svc/domain/webhook"
import { Effect, Layer, Redacted } from "effect"
import * as HttpWebhookSender from "./HttpWebhookSender.ts"
import * as WebhookSecretBox from "./WebhookSecretBox.ts"

const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`

/** A local server answering with `handler`, closed with the scope; answers its base URL. */
const serve = (handler: (req: IncomingMessage, res: ServerResponse) => void) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ url: string; close: () => void }>((resolve) => {
          const server = createServer(handler)
          server.listen(0, "127.0.0.1", () =>
            resolve({
              url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
              close: () => {
                server.closeAllConnections()
                server.close()
              }
            })
          )
        })
    ),
    ({ close }) => Effect.sync(close)
  ).pipe(Effect.map(({ url }) => url))

const sender = (allowPrivate: boolean) =>
  HttpWebhookSender.layer.pipe(Layer.provide(WebhookUrlPolicy.layer({ requireHttps: false, allowPrivate })))

/** The kept body of a result that is a response. */
const bodyOf = (result: AttemptResult) => (result._tag === "Response" ? result.body : undefined)

const send = (url: string, timeoutMillis = 5_000) =>
  WebhookSender.use((s) =>
    s.send({ url, id: "dl-1", timestamp: 1_700_000_000, body: '{"a":1}', secrets: [secret], timeoutMillis })
  )

describe("HttpWebhookSender", () => {
  it.live("POSTs the body byte for byte with both signatures; follows no redirect; reads Retry-After", () =>
    Effect.gen(function* () {
      const seen: Array<{ headers: IncomingMessage["headers"]; body: string }> = []
      const base = yield* serve((req, res) => {
        let body = ""
        req.on("data", (c) => {
          body += c
        })
        req.on("end", () => {
          seen.push({ headers: req.headers, body })
          if (req.url === "/redirect") return res.writeHead(302, { location: "/ok" }).end()
          if (req.url === "/busy") return res.writeHead(429, { "retry-after": "7" }).end()
          res.writeHead(204).end()
        })
      })
      const ok = yield* send(`${base}/ok`)
      assert.deepStrictEqual([ok._tag, ok._tag === "Response" && ok.status], ["Response", 204])
      assert.deepStrictEqual(bodyOf(ok), { text: "", truncated: false })
      const [request] = seen
      assert.strictEqual(request?.body, '{"a":1}')
      const key = Buffer.alloc(32, 7)
      const v1 = createHmac("sha256", key).update(`dl-1.1700000000.{"a":1}`).digest("base64")
      assert.strictEqual(request?.headers["webhook-signature"], `v1,${v1}`)
      assert.strictEqual(request?.headers["webhook-id"], "dl-1")
      assert.strictEqual(request?.headers["webhook-timestamp"], "1700000000")
      const hex = createHmac("sha256", key).update(`1700000000.{"a":1}`).digest("hex")
      assert.strictEqual(request?.headers["x-svc-signature"], `t=1700000000,v1=${hex}`)
      const redirected = yield* send(`${base}/redirect`)
      assert.strictEqual(redirected._tag === "Response" && redirected.status, 302)
      assert.strictEqual(seen.length, 2)
      const busy = yield* send(`${base}/busy`)
      assert.strictEqual(busy._tag === "Response" && busy.retryAfterMillis, 7_000)
    }).pipe(Effect.provide(sender(true)))
  )

  it.live("keeps the start of the body as UTF-8 text: whole when short, bytes that are not UTF-8 replaced", () =>
    Effect.gen(function* () {
      const base = yield* serve((req, res) => {
        req.resume()
        if (req.url === "/json") return res.writeHead(400, { "content-type": "application/json" }).end('{"e":"<b>"}')
        // "a", a stray byte, "b", NUL, "€", then the first two bytes of a three-byte character: nothing after them.
        res.writeHead(200).end(Buffer.from([0x61, 0xff, 0x62, 0x00, 0xe2, 0x82, 0xac, 0xe2, 0x82]))
      })
      assert.deepStrictEqual(bodyOf(yield* send(`${base}/json`)), { text: '{"e":"<b>"}', truncated: false })
      assert.deepStrictEqual(bodyOf(yield* send(`${base}/bytes`)), {
        text: "a\uFFFDb\u0000€\uFFFD",
        truncated: false
      })
    }).pipe(Effect.provide(sender(true)))
  )

  it.live(
    "keeps the first 2 KiB of a longer body, marked truncated, without the character the cut splits; a body its connection cut is marked too",
    () =>
      Effect.gen(function* () {
        const base = yield* serve((req, res) => {
          req.resume()
          if (req.url === "/cut") {
            res.writeHead(200, { "content-length": "7" })
            return res.write("par", () => res.destroy())
          }
          // 1 + 2 × 1 500 bytes: the 2 048th byte is the first half of an "é".
          res.writeHead(200).end(`a${"é".repeat(1_500)}`)
        })
        const long = bodyOf(yield* send(`${base}/long`))
        assert.deepStrictEqual(long, { text: `a${"é".repeat((keptResponseBytes - 2) / 2)}`, truncated: true })
        // A body whose connection closes before its end is cut too, however short.
        const cut = yield* send(`${base}/cut`)
        assert.strictEqual(cut._tag === "Response" && cut.status, 200)
        assert.deepStrictEqual(bodyOf(cut), { text: "par", truncated: true })
      }).pipe(Effect.provide(sender(true)))
  )

  it.live("a body still coming at the timeout fails the attempt then, saying the status that came", () =>
    Effect.gen(function* () {
      const base = yield* serve((req, res) => {
        req.resume()
        // The status and the start of a body, then nothing more, never an end.
        res.writeHead(200)
        res.write("partial")
      })
      const slow = yield* send(`${base}/slow-body`, 300)
      assert.strictEqual(slow._tag, "NoResponse")
      assert.strictEqual(slow._tag === "NoResponse" && slow.reason, "HTTP 200, but its body did not end within 300 ms")
      assert.isAtLeast(slow.durationMillis, 300)
    }).pipe(Effect.provide(sender(true)))
  )

  it.live("gives up after the timeout, and stops reading a huge answer at 64 KiB", () =>
    Effect.gen(function* () {
      const base = yield* serve((req, res) => {
        req.resume()
        // not a wait: a receiver that answers after the sender's timeout
        if (req.url === "/slow") return void setTimeout(() => res.writeHead(204).end(), 5_000)
        res.writeHead(200, { "content-type": "application/octet-stream" })
        // Streams without end: only the read limit lets the attempt finish.
        const chunk = Buffer.alloc(16 * 1024, 1)
        const pump = () => {
          while (res.write(chunk)) {}
          res.once("drain", pump)
        }
        pump()
      })
      const slow = yield* send(`${base}/slow`, 200)
      assert.strictEqual(slow._tag, "NoResponse")
      assert.strictEqual(slow._tag === "NoResponse" && slow.reason, "no answer within 200 ms")
      const huge = yield* send(`${base}/huge`)
      assert.strictEqual(huge._tag === "Response" && huge.status, 200)
      assert.isAbove(maxResponseBytes, keptResponseBytes)
      assert.deepStrictEqual(bodyOf(huge), { text: "\u0001".repeat(keptResponseBytes), truncated: true })
    }).pipe(Effect.provide(sender(true)))
  )

  it.live("refuses loopback and private addresses when they are not allowed, sending nothing", () =>
    Effect.gen(function* () {
      let hits = 0
      const base = yield* serve((_req, res) => {
        hits++
        res.writeHead(204).end()
      })
      const refused = yield* send(`${base}/x`)
      assert.strictEqual(refused._tag, "NoResponse")
      assert.strictEqual(hits, 0)
    }).pipe(Effect.provide(sender(false)))
  )
})

describe("WebhookSecretBox", () => {
  it.effect("seals a secret so the stored form does not show it, and opens it with the same key only", () =>
    Effect.gen(function* () {
      const box = yield* SecretBox
      const sealed = yield* box.seal(secret)
      assert.match(sealed, /^v1\./)
      assert.notInclude(sealed, secret.slice(6, 20))
      assert.notStrictEqual(yield* box.seal(secret), sealed)
      assert.strictEqual(yield* box.open(sealed), secret)
      const other = yield* SecretBox.pipe(
        Effect.provide(WebhookSecretBox.layer(Redacted.make(WebhookSecretBox.newKey())))
      )
      const exit = yield* Effect.exit(other.open(sealed))
      assert.strictEqual(exit._tag, "Failure")
    }).pipe(Effect.provide(WebhookSecretBox.layer(Redacted.make(WebhookSecretBox.newKey()))))
  )
})
