import { randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "@svc/domain/Ids"
import { Effect, Layer, Redacted } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { AccessTokens } from "../AccessTokens.ts"
import { IdempotencyStore } from "../IdempotencyStore.ts"
import { maxBodyBytes, withErrorEnvelope } from "./ErrorEnvelope.ts"
import { withIdempotency } from "./Idempotency.ts"

// The idempotency middleware alone (no envelope around it): it must read the body under the limit itself.
const services = Layer.mergeAll(
  AccessTokens.make(Redacted.make(randomBytes(32).toString("hex"))),
  IdempotencyStore.layerMemory
)

const app = Layer.mergeAll(
  HttpRouter.add(
    "POST",
    "/echo",
    withErrorEnvelope(
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.map(request.text, (text) => HttpServerResponse.jsonUnsafe({ success: true, data: text.length }))
      )
    )
  ),
  HttpRouter.middleware(
    Effect.map(withIdempotency, (idempotency) => (effect) => idempotency(effect) as unknown as typeof effect),
    { global: true }
  )
).pipe(Layer.provide(HttpServer.layerServices))

/** A body of `bytes` bytes sent as a stream, so without a content-length. */
const chunkedBody = (bytes: number) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      const chunk = new Uint8Array(64 * 1024).fill(120)
      for (let sent = 0; sent < bytes; sent += chunk.length) controller.enqueue(chunk)
      controller.close()
    }
  })

describe("idempotency middleware", () => {
  it.live("reads the body under the 1 MiB limit: a longer chunked body answers 413 and claims nothing", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(services)
      const tokens = yield* AccessTokens.pipe(Effect.provide(context))
      const store = yield* IdempotencyStore.pipe(Effect.provide(context))
      const token = yield* tokens.issue({ sub: "us-000000000001" as UserId, wallet: "0x01" })
      const { handler, dispose } = HttpRouter.toWebHandler(app.pipe(Layer.provide(Layer.succeedContext(context))), {
        disableLogger: true
      })
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const send = (bytes: number, key: string) =>
        Effect.promise(async () => {
          const response = await handler(
            new Request("http://localhost/echo", {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "idempotency-key": key },
              body: chunkedBody(bytes),
              duplex: "half"
            } as RequestInit)
          )
          return { status: response.status, body: (await response.json()) as { error_code?: string } }
        })

      const small = yield* send(64 * 1024, "small")
      assert.strictEqual(small.status, 200, JSON.stringify(small.body))
      const large = yield* send(maxBodyBytes + 64 * 1024, "large")
      assert.strictEqual(large.status, 413, JSON.stringify(large.body))
      assert.strictEqual(large.body.error_code, "PAYLOAD_TOO_LARGE")
      const claim = yield* store.claim({ scope: "us-000000000001", key: "large" }, "h", Date.now())
      assert.strictEqual(claim._tag, "Claimed", "the oversized request left no claim behind")
    }).pipe(Effect.scoped)
  )
})
