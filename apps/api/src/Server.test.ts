import { request } from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import * as Server from "./Server.ts"
import { call, startTestServer } from "./TestServer.ts"

describe("API server", () => {
  it.live("answers GET /health with 200 over real HTTP", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const response = yield* call(server, "GET", "/health")
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(response.body, { success: true, data: { status: "ok" } })
      assert.match(response.headers.get("x-request-id") ?? "", /^req_[0-9a-f]{32}$/)
    }).pipe(Effect.scoped)
  )

  it.live("serves its OpenAPI 3.1 document with every route of the spec, and the docs", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const response = yield* call(server, "GET", "/openapi.json")
      assert.strictEqual(response.status, 200)
      const document = response.body as { openapi: string; paths: Record<string, Record<string, unknown>> }
      assert.match(document.openapi, /^3\.1/)
      const routes = [
        ["get", "/health"],
        ["get", "/v2/auth/siwe"],
        ["post", "/v2/auth/verify"],
        ["get", "/v2/user/teams"],
        ["post", "/v2/teams"],
        ["get", "/v2/teams/{team_nanoid}"],
        ["put", "/v2/teams/{team_nanoid}"],
        ["delete", "/v2/teams/{team_nanoid}"],
        ["get", "/v2/teams/{team_nanoid}/users"],
        ["get", "/v2/teams/{team_nanoid}/member/{user_nanoid}/summary"],
        ["delete", "/v2/teams/{team_nanoid}/member/{user_nanoid}"],
        ["get", "/v2/teams/{team_nanoid}/settings"],
        ["put", "/v2/teams/{team_nanoid}/settings"],
        ["get", "/v2/teams/{team_nanoid}/member/{user_nanoid}/settings"],
        ["put", "/v2/teams/{team_nanoid}/member/{user_nanoid}/settings"],
        ["get", "/v2/payments"],
        ["post", "/v2/payments"],
        ["put", "/v2/payments"],
        ["post", "/v2/payments/external_entity/instant"],
        ["get", "/v2/invites"],
        ["post", "/v2/invites"],
        ["post", "/v2/invites/manager"],
        ["put", "/v2/invites/manager"],
        ["post", "/v2/invites/accept"],
        ["post", "/v2/invites/reject"],
        ["delete", "/v2/invites/{invite_nanoid}"],
        ["post", "/v2/invites/{invite_nanoid}/resend"],
        ["get", "/v2/webhooks/{webhook_nanoid}"],
        ["post", "/v2/webhooks/test/{webhook_nanoid}"],
        ["get", "/v2/balance"]
      ] as const
      for (const [method, path] of routes) {
        assert.property(document.paths[path] ?? {}, method, `${method.toUpperCase()} ${path} in OpenAPI`)
      }
      const docs = yield* call(server, "GET", "/docs")
      assert.strictEqual(docs.status, 200)
      assert.include(String(docs.body), "openapi")
    }).pipe(Effect.scoped)
  )
})

describe("graceful shutdown", () => {
  it.live("a request in flight when the server stops still gets its answer", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const context = yield* Layer.build(Server.layer({ port: 0, logRequests: false })).pipe(Scope.provide(scope))
      const server = yield* HttpServer.HttpServer.pipe(Effect.provide(context))
      const port = Number(new URL(HttpServer.formatAddress(server.address)).port)
      // A body sent in two parts: the server is stopped between them.
      const answer = Effect.callback<{ status: number; body: string }, Error>((resume) => {
        const req = request(
          {
            host: "127.0.0.1",
            port,
            method: "POST",
            path: "/v2/auth/verify",
            headers: { "content-type": "application/json", "transfer-encoding": "chunked" }
          },
          (res) => {
            let body = ""
            res.on("data", (chunk) => {
              body += chunk
            })
            res.on("end", () => resume(Effect.succeed({ status: res.statusCode ?? 0, body })))
          }
        )
        req.on("error", (error) => resume(Effect.fail(error)))
        req.write('{"message":"hello",')
        setTimeout(() => {
          Effect.runFork(Scope.close(scope, Exit.void))
          setTimeout(() => req.end('"sig":"0x00","nonce":"short"}'), 200)
        }, 100)
      })
      const response = yield* answer
      assert.strictEqual(response.status, 400)
      assert.strictEqual(JSON.parse(response.body).error_code, "VALIDATION_ERROR")
    })
  )
})
