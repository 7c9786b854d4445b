import { Agent, request } from "node:http"
import { brotliCompressSync, gzipSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"
import { HttpServer } from "effect/http"
import { call, type SeededMember, seedTeam, signIn, startTestServer } from "../test/TestServer.ts"
import * as Server from "./Server.ts"

/** A request on `agent`: its status and `connection` header, or the socket error it met. */
const onAgent = (
  agent: Agent,
  url: string,
  method: string,
  options: { readonly chunks?: ReadonlyArray<Buffer>; readonly headers?: Record<string, string> } = {}
) =>
  Effect.callback<{ readonly status: number; readonly connection: string | undefined } | { readonly error: string }>(
    (resume) => {
      const req = request(
        url,
        { method, agent, headers: { "content-type": "application/json", ...options.headers } },
        (res) => {
          res.resume()
          res.on("end", () =>
            resume(Effect.succeed({ status: res.statusCode ?? 0, connection: res.headers.connection }))
          )
        }
      )
      req.on("error", (error) => resume(Effect.succeed({ error: error.message })))
      // Written in pieces with no length: a chunked body, which the server can only refuse once it read past the limit.
      for (const chunk of options.chunks ?? []) req.write(chunk)
      req.end()
    }
  )

describe("API server", () => {
  it.live("a served path asked with another method answers 405 with Allow; an unknown path stays 404", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, members } = yield* seedTeam(server, ["team_admin"])
      const token = yield* signIn(server, (members[0] as SeededMember).account)
      const patch = yield* call(server, "PATCH", `/v2/teams/${teamId}`, { token, body: { name: "x" } })
      assert.strictEqual(patch.status, 405, JSON.stringify(patch.body))
      assert.strictEqual(patch.body.error_code, "METHOD_NOT_ALLOWED")
      assert.deepStrictEqual((patch.headers.get("allow") ?? "").split(", ").sort(), ["DELETE", "GET", "PUT"])
      const post = yield* call(server, "POST", "/health")
      assert.strictEqual(post.status, 405)
      assert.strictEqual(post.headers.get("allow"), "GET")
      // Allow names only what is served for this very path: `accept` is no invite id, so DELETE is not (issue 21).
      const options = yield* call(server, "OPTIONS", "/v2/invites/accept")
      assert.strictEqual(options.status, 405)
      assert.strictEqual(options.headers.get("allow"), "POST")
      const revoke = yield* call(server, "PATCH", "/v2/invites/in-AAAAAAAAAAAA")
      assert.strictEqual(revoke.headers.get("allow"), "DELETE")
      const unknown = yield* call(server, "PATCH", "/v2/nothing-here")
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(unknown.body.error_code, "ROUTE_NOT_FOUND")
    }).pipe(Effect.scoped)
  )

  it.live(
    "a body declared in another charset than UTF-8 answers 400 and changes nothing; utf-8 in any case is served",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServer
        const { teamId, members } = yield* seedTeam(server, ["team_admin"])
        const token = yield* signIn(server, (members[0] as SeededMember).account)
        const put = (contentType: string, body: Uint8Array) =>
          Effect.promise(async () => {
            const response = await fetch(`${server.baseUrl}/v2/teams/${teamId}`, {
              method: "PUT",
              headers: { authorization: `Bearer ${token}`, "content-type": contentType },
              body
            })
            return { status: response.status, body: (await response.json()) as { error_code?: string; data: unknown } }
          })
        // Bytes that parse as UTF-8 JSON but are declared as something else: what the client meant cannot be known.
        const utf8 = new TextEncoder().encode(JSON.stringify({ name: "Renamed" }))
        for (const charset of ["utf-16", "UTF-16LE", '"iso-8859-1"']) {
          const refused = yield* put(`application/json; charset=${charset}`, utf8)
          assert.strictEqual(refused.status, 400, charset)
          assert.strictEqual(refused.body.error_code, "VALIDATION_ERROR")
        }
        const team = yield* call(server, "GET", `/v2/teams/${teamId}`, { token })
        assert.notStrictEqual(team.body.data.name, "Renamed")
        assert.strictEqual((yield* put("application/json; charset=UTF-8", utf8)).status, 200)
      }).pipe(Effect.scoped)
  )

  it.live("a body in a content coding (gzip, or any other) answers 415 in the envelope and changes nothing", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, members } = yield* seedTeam(server, ["team_admin"])
      const token = yield* signIn(server, (members[0] as SeededMember).account)
      const renamed = JSON.stringify({ name: "Renamed" })
      const put = (encoding: string, body: Uint8Array | string) =>
        Effect.promise(async () => {
          const response = await fetch(`${server.baseUrl}/v2/teams/${teamId}`, {
            method: "PUT",
            headers: {
              authorization: `Bearer ${token}`,
              "content-type": "application/json",
              "content-encoding": encoding
            },
            body
          })
          const answer = (await response.json()) as { success: boolean; error_code: string; data: string }
          return { status: response.status, headers: response.headers, body: answer }
        })
      // The compressed bytes, and plain JSON that only says it is compressed: both refused before being read.
      for (const [encoding, body] of [
        ["gzip", gzipSync(renamed)],
        ["GZIP", renamed],
        ["br", brotliCompressSync(renamed)],
        ["deflate, gzip", renamed],
        ["x-custom", renamed]
      ] as const) {
        const refused = yield* put(encoding, body)
        assert.strictEqual(refused.status, 415, encoding)
        assert.deepInclude(refused.body, { success: false, error_code: "UNSUPPORTED_MEDIA_TYPE" })
        assert.include(refused.body.data, "Content-Encoding")
        assert.strictEqual(refused.headers.get("accept-encoding"), "identity")
      }
      const team = yield* call(server, "GET", `/v2/teams/${teamId}`, { token })
      assert.notStrictEqual(team.body.data.name, "Renamed")
      assert.strictEqual((yield* put("identity", renamed)).status, 200)
    }).pipe(Effect.scoped)
  )

  it.live("serves paths only as written: other letter case, doubled slashes and ;params name no route", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, members } = yield* seedTeam(server, ["team_admin"])
      const token = yield* signIn(server, (members[0] as SeededMember).account)
      assert.strictEqual((yield* call(server, "GET", `/v2/teams/${teamId}`, { token })).status, 200)
      for (const path of [
        `/V2/TEAMS/${teamId}`,
        `/v2/Teams/${teamId}`,
        `//v2/teams/${teamId}`,
        `/v2//teams/${teamId}`,
        `/v2/teams/${teamId};x=1`,
        "/HEALTH"
      ]) {
        const response = yield* call(server, "GET", path, { token })
        assert.strictEqual(response.status, 404, path)
        assert.strictEqual(response.body.error_code, "ROUTE_NOT_FOUND", path)
      }
    }).pipe(Effect.scoped)
  )

  it.live("after a 413 for a body over the limit, the next request on a keep-alive client is served", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const agent = new Agent({ keepAlive: true, maxSockets: 1 })
      yield* Effect.addFinalizer(() => Effect.sync(() => agent.destroy()))
      const warm = yield* onAgent(agent, `${server.baseUrl}/health`, "GET")
      assert.deepInclude(warm, { status: 200 })
      const { members } = yield* seedTeam(server, ["team_admin"])
      const token = yield* signIn(server, (members[0] as SeededMember).account)
      // With a key, the body is read (to fingerprint it) before anything else, past the limit.
      const tooLarge = yield* onAgent(agent, `${server.baseUrl}/v2/teams`, "POST", {
        chunks: Array.from({ length: 48 }, () => Buffer.alloc(64 * 1024, 32)),
        headers: { authorization: `Bearer ${token}`, "idempotency-key": "too-large" }
      })
      assert.deepStrictEqual(tooLarge, { status: 413, connection: "close" })
      const next = yield* onAgent(agent, `${server.baseUrl}/health`, "GET")
      assert.deepInclude(next, { status: 200 })
    }).pipe(Effect.scoped)
  )

  it.live("answers GET /health with 200 over real HTTP", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const response = yield* call(server, "GET", "/health")
      assert.strictEqual(response.status, 200)
      assert.deepStrictEqual(response.body, { success: true, data: { status: "ok" } })
      assert.match(response.headers.get("x-request-id") ?? "", /^req_[0-9a-f]{32}$/)
    }).pipe(Effect.scoped)
  )

  it.live("a caller's well-formed X-Request-Id is echoed and named in the error envelope; another is replaced", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const echoed = yield* call(server, "GET", "/health", { headers: { "x-request-id": "lb-7f3a:42" } })
      assert.strictEqual(echoed.headers.get("x-request-id"), "lb-7f3a:42")
      const refused = yield* call(server, "GET", "/v2/user/teams", { headers: { "x-request-id": "trace-9" } })
      assert.strictEqual(refused.status, 401)
      assert.strictEqual(refused.headers.get("x-request-id"), "trace-9")
      assert.strictEqual(refused.body.request_id, "trace-9")
      for (const bad of ["has space", "x".repeat(129), "semi;colon"]) {
        const replaced = yield* call(server, "GET", "/v2/user/teams", { headers: { "x-request-id": bad } })
        assert.match(replaced.headers.get("x-request-id") ?? "", /^req_[0-9a-f]{32}$/)
        assert.strictEqual(replaced.body.request_id, replaced.headers.get("x-request-id"))
      }
    }).pipe(Effect.scoped)
  )

  it.live("the document and the guide in /docs name the server's own address", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const document = (yield* call(server, "GET", "/openapi.json")).body as {
        servers?: Array<{ url: string }>
        info: { description: string; license?: { name: string } }
      }
      assert.deepStrictEqual(document.servers, [{ url: server.baseUrl }])
      assert.include(document.info.description, `const base = "${server.baseUrl}"`)
      assert.notInclude(document.info.description, "127.0.0.1:3000")
      assert.strictEqual(document.info.license?.name, "MIT")
      const docs = yield* Effect.promise(() => fetch(`${server.baseUrl}/docs`).then((r) => r.text()))
      assert.include(docs, server.baseUrl)
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
        ["post", "/v2/auth/refresh"],
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
        // not a wait: a client that sends the rest of its body while the server stops, as a slow one would
        setTimeout(() => {
          Effect.runFork(Scope.close(scope, Exit.void))
          // not a wait: the rest of the body, after the stop began
          setTimeout(() => req.end('"sig":"0x00","nonce":"short"}'), 200)
        }, 100)
      })
      const response = yield* answer
      assert.strictEqual(response.status, 400)
      assert.strictEqual(JSON.parse(response.body).error_code, "VALIDATION_ERROR")
    })
  )
})
