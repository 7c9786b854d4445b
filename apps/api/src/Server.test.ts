import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import * as Server from "./Server.ts"

const serve = Effect.gen(function* () {
  const context = yield* Layer.build(Server.layer({ port: 0 }))
  const server = yield* HttpServer.HttpServer.pipe(Effect.provide(context))
  const address = server.address
  if (address._tag === "UnixPathAddress") return yield* Effect.die("expected a TCP address")
  return `http://127.0.0.1:${address.port}`
})

describe("API server", () => {
  it.live("answers GET /health with 200 over real HTTP", () =>
    Effect.gen(function* () {
      const base = yield* serve
      const response = yield* Effect.promise(() => fetch(`${base}/health`))
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(yield* Effect.promise(() => response.json()), { success: true, data: { status: "ok" } })
    }).pipe(Effect.scoped)
  )

  it.live("serves its OpenAPI 3.1 document", () =>
    Effect.gen(function* () {
      const base = yield* serve
      const response = yield* Effect.promise(() => fetch(`${base}/openapi.json`))
      assert.strictEqual(response.status, 200)
      const document = (yield* Effect.promise(() => response.json())) as { openapi: string; paths: object }
      assert.match(document.openapi, /^3\.1/)
      assert.property(document.paths, "/health")
    }).pipe(Effect.scoped)
  )
})
