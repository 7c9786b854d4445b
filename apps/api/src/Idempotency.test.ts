/**
 * `Idempotency-Key` over real HTTP: replay, 422 on another body, 409 while the first runs, scoped to the caller.
 */
import { request as httpRequest } from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { IdempotencyStore } from "@svc/domain/idempotency"
import { Effect } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import {
  type CallResult,
  call,
  countRows,
  type SeededMember,
  seedTeam,
  signIn,
  startTestServer,
  type TestServer
} from "../test/TestServer.ts"

/** A request whose body is sent chunked (no content-length), so only reading it can find out its size. */
const callChunked = (
  server: TestServer,
  path: string,
  options: { readonly token: string; readonly chunks: ReadonlyArray<string>; readonly headers: Record<string, string> }
): Effect.Effect<CallResult> =>
  Effect.callback<CallResult>((resume) => {
    const req = httpRequest(`${server.baseUrl}${path}`, {
      method: "POST",
      headers: {
        ...options.headers,
        authorization: `Bearer ${options.token}`,
        "content-type": "application/json",
        "transfer-encoding": "chunked"
      }
    })
    req.on("response", (response) => {
      const parts: Array<Buffer> = []
      response.on("data", (part: Buffer) => parts.push(part))
      response.on("end", () => {
        const text = Buffer.concat(parts).toString("utf8")
        const headers = new globalThis.Headers()
        for (const [name, value] of Object.entries(response.headers)) {
          if (typeof value === "string") headers.set(name, value)
        }
        resume(Effect.succeed({ status: response.statusCode ?? 0, headers, body: JSON.parse(text) }))
      })
    })
    // The server may answer and stop reading before the whole body is sent.
    req.on("error", (error) => resume(Effect.die(error)))
    for (const chunk of options.chunks) req.write(chunk)
    req.end()
  })

describe("idempotency keys", () => {
  it.live("the same key and body replays; another body is 422; a running request is 409", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { companyId, members } = yield* seedTeam(server, ["team_admin"])
      const admin = members[0] as SeededMember
      const token = yield* signIn(server, admin.account)
      const body = {
        name: "Idempotent",
        entity_nanoid: companyId,
        admin_wallet: privateKeyToAccount(generatePrivateKey()).address
      }
      const create = (key: string, payload: unknown) =>
        call(server, "POST", "/v2/teams", { token, body: payload, headers: { "idempotency-key": key } })

      const first = yield* create("key-1", body)
      assert.strictEqual(first.status, 200, JSON.stringify(first.body))
      const replay = yield* create("key-1", body)
      assert.strictEqual(replay.status, 200)
      assert.deepStrictEqual(replay.body, first.body)
      assert.strictEqual(replay.headers.get("idempotent-replayed"), "true")
      const teams = yield* call(server, "GET", "/v2/user/teams", { token })
      assert.strictEqual(
        teams.body.data.teams.filter((t: { name: string }) => t.name === "Idempotent").length,
        1,
        "one team was made, and its creator is its admin"
      )

      const reused = yield* create("key-1", { ...body, name: "Other name" })
      assert.strictEqual(reused.status, 422)
      assert.strictEqual(reused.body.error_code, "IDEMPOTENCY_KEY_REUSED")

      const second = yield* create("key-2", body)
      assert.strictEqual(second.status, 200)
      assert.notStrictEqual(second.body.data.team_nanoid, first.body.data.team_nanoid)

      // A request still running holds its key: claim it the way a concurrent request would, then retry.
      const store = yield* IdempotencyStore.pipe(Effect.provide(server.context))
      const running = { scope: admin.user, key: "key-running" }
      const bodyHash = yield* Effect.promise(async () => {
        const { createHash } = await import("node:crypto")
        return createHash("sha256")
          .update(`POST /v2/teams\n${JSON.stringify(body)}`)
          .digest("hex")
      })
      assert.strictEqual((yield* store.claim(running, bodyHash, Date.now()))._tag, "Claimed")
      const busy = yield* create("key-running", body)
      assert.strictEqual(busy.status, 409)
      assert.strictEqual(busy.body.error_code, "IDEMPOTENCY_IN_PROGRESS")

      // Keys belong to their caller: another user's identical key runs on its own.
      const other = yield* seedTeam(server, ["team_admin"])
      const otherToken = yield* signIn(server, (other.members[0] as SeededMember).account)
      const theirs = yield* call(server, "POST", "/v2/teams", {
        token: otherToken,
        body: { ...body, entity_nanoid: other.companyId },
        headers: { "idempotency-key": "key-1" }
      })
      assert.strictEqual(theirs.status, 200)
      assert.isNull(theirs.headers.get("idempotent-replayed"))

      // Errors are kept too (below 500): a refused request replays its refusal.
      const refused = yield* create("key-3", { ...body, entity_nanoid: "co-unknown" })
      assert.strictEqual(refused.status, 403)
      const refusedAgain = yield* create("key-3", { ...body, entity_nanoid: "co-unknown" })
      assert.strictEqual(refusedAgain.status, 403)
      assert.strictEqual(refusedAgain.headers.get("idempotent-replayed"), "true")
    }).pipe(Effect.scoped)
  )
})

describe("idempotency keys and the body limit", () => {
  it.live("a chunked body over 1 MiB with a key answers 413 and writes nothing", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { companyId, members } = yield* seedTeam(server, ["team_admin"])
      const admin = members[0] as SeededMember
      const token = yield* signIn(server, admin.account)
      const wallet = privateKeyToAccount(generatePrivateKey()).address
      const head = `{"entity_nanoid":"${companyId}","admin_wallet":"${wallet}","name":"`
      const chunks = [head, ...Array.from({ length: 17 }, () => "x".repeat(64 * 1024)), '"}']
      const teamsBefore = yield* countRows(server, "teams")
      const response = yield* callChunked(server, "/v2/teams", {
        token,
        chunks,
        headers: { "idempotency-key": "big-1" }
      })
      assert.strictEqual(response.status, 413, JSON.stringify(response.body))
      assert.strictEqual(response.body.error_code, "PAYLOAD_TOO_LARGE")
      assert.match(response.headers.get("x-request-id") ?? "", /^req_/)
      assert.strictEqual(yield* countRows(server, "teams"), teamsBefore)
      assert.strictEqual(yield* countRows(server, "idempotency_keys"), 0)
    }).pipe(Effect.scoped)
  )
})

describe("error envelope", () => {
  it.live("malformed JSON, a wrong content type, an oversized body and an unknown route answer the envelope", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const check = (response: { status: number; body: unknown; headers: Headers }, status: number, code: string) => {
        assert.strictEqual(response.status, status, JSON.stringify(response.body))
        assert.deepStrictEqual(Object.keys(response.body as object).sort(), [
          "data",
          "error_code",
          "request_id",
          "success"
        ])
        // The envelope names the request as its header does (issue 22).
        assert.strictEqual((response.body as { request_id: string }).request_id, response.headers.get("x-request-id"))
        assert.strictEqual((response.body as { error_code: string }).error_code, code)
        assert.match(response.headers.get("x-request-id") ?? "", /^req_/)
      }
      check(yield* call(server, "POST", "/v2/auth/verify", { rawBody: "{not json" }), 400, "INVALID_JSON")
      check(
        yield* call(server, "POST", "/v2/auth/verify", { rawBody: "{}", headers: { "content-type": "text/plain" } }),
        415,
        "UNSUPPORTED_MEDIA_TYPE"
      )
      check(
        yield* call(server, "POST", "/v2/auth/verify", { rawBody: `{"message":"${"x".repeat(1_100_000)}"}` }),
        413,
        "PAYLOAD_TOO_LARGE"
      )
      check(yield* call(server, "GET", "/v2/does/not/exist"), 404, "ROUTE_NOT_FOUND")
      check(yield* call(server, "GET", "/v2/user/teams"), 401, "UNAUTHORIZED")
      check(yield* call(server, "GET", `/v2/auth/siwe?wallet=${"0".repeat(20_000)}`), 431, "HEADERS_TOO_LARGE")
    }).pipe(Effect.scoped)
  )
})
