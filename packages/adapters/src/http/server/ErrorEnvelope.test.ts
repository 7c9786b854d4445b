import { assert, describe, it } from "@effect/vitest"
import { ChainUnreachable } from "@svc/domain/chain"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { withErrorEnvelope, withRequestId } from "./ErrorEnvelope.ts"

/** An error as the MongoDB driver names one for a server it cannot select. */
const mongoDown = () => {
  const error = new Error("connect ECONNREFUSED 127.0.0.1:1")
  error.name = "MongoServerSelectionError"
  return error
}

const app = Layer.mergeAll(
  HttpRouter.add("GET", "/boom", Effect.die(new Error("secret detail: db password"))),
  HttpRouter.add("GET", "/fail", Effect.fail(new Error("unexpected typed failure"))),
  HttpRouter.add("GET", "/ok", HttpServerResponse.jsonUnsafe({ success: true, data: 1 })),
  // What the storage drivers and the chain adapter throw when their dependency is gone.
  HttpRouter.add("GET", "/chain-down", Effect.die(new ChainUnreachable({ reason: "fetch failed" }))),
  HttpRouter.add("GET", "/mongo-down", Effect.die(mongoDown())),
  HttpRouter.add(
    "GET",
    "/sqlite-busy",
    Effect.die(Object.assign(new Error("database is locked"), { code: "ERR_SQLITE_ERROR", errcode: 5 }))
  ),
  HttpRouter.middleware((effect) => withRequestId(withErrorEnvelope(effect)) as unknown as typeof effect, {
    global: true
  })
).pipe(Layer.provide(HttpServer.layerServices))

describe("error envelope", () => {
  it.live("an unexpected failure answers 500 with the request id in body and header, and no details", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => HttpRouter.toWebHandler(app, { disableLogger: true })),
      ({ handler }) =>
        Effect.gen(function* () {
          for (const path of ["/boom", "/fail"]) {
            const response = yield* Effect.promise(() => handler(new Request(`http://localhost${path}`)))
            assert.strictEqual(response.status, 500)
            const requestId = response.headers.get("x-request-id") ?? ""
            assert.match(requestId, /^req_[0-9a-f]{32}$/)
            const body = (yield* Effect.promise(() => response.json())) as Record<string, string>
            assert.strictEqual(body.error_code, "INTERNAL_ERROR")
            assert.strictEqual(body.success as unknown, false)
            assert.include(body.data, requestId)
            assert.notInclude(JSON.stringify(body), "secret")
            assert.notInclude(JSON.stringify(body), "unexpected typed failure")
          }
          const ok = yield* Effect.promise(() => handler(new Request("http://localhost/ok")))
          assert.strictEqual(ok.status, 200)
          const a = ok.headers.get("x-request-id")
          const again = yield* Effect.promise(() => handler(new Request("http://localhost/ok")))
          assert.notStrictEqual(again.headers.get("x-request-id"), a)
        }),
      ({ dispose }) => Effect.promise(dispose)
    )
  )

  it.live("an unavailable dependency answers 503 SERVICE_UNAVAILABLE with Retry-After, and no details", () =>
    Effect.acquireUseRelease(
      Effect.sync(() => HttpRouter.toWebHandler(app, { disableLogger: true })),
      ({ handler }) =>
        Effect.gen(function* () {
          for (const path of ["/chain-down", "/mongo-down", "/sqlite-busy"]) {
            const response = yield* Effect.promise(() => handler(new Request(`http://localhost${path}`)))
            assert.strictEqual(response.status, 503, path)
            assert.strictEqual(response.headers.get("retry-after"), "5")
            const body = (yield* Effect.promise(() => response.json())) as Record<string, unknown>
            assert.deepStrictEqual(body, {
              success: false,
              data: "The service is temporarily unavailable",
              error_code: "SERVICE_UNAVAILABLE",
              request_id: response.headers.get("x-request-id")
            })
          }
        }),
      ({ dispose }) => Effect.promise(dispose)
    )
  )
})
