import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { withErrorEnvelope, withRequestId } from "./ErrorEnvelope.ts"

const app = Layer.mergeAll(
  HttpRouter.add("GET", "/boom", Effect.die(new Error("secret detail: db password"))),
  HttpRouter.add("GET", "/fail", Effect.fail(new Error("unexpected typed failure"))),
  HttpRouter.add("GET", "/ok", HttpServerResponse.jsonUnsafe({ success: true, data: 1 })),
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
})
