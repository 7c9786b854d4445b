import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
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
