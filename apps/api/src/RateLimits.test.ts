/**
 * Rate limits over real HTTP (issue 14, defect 2; decision 0035): per client IP on every route but `/health`, per
 * user on requests with a valid token, and a stricter one for sign-in. Over a limit the answer is 429 RATE_LIMITED in
 * the envelope with `Retry-After`, and nothing else happens. Refilling is shown on the buckets' own clock
 * (RateLimit.test.ts), not by waiting here.
 */
import { assert, describe, it } from "@effect/vitest"
import { noRateLimits, type RateLimitSettings } from "@svc/adapters/http/server"
import { Effect } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import {
  type CallResult,
  call,
  countRows,
  type SeededMember,
  seedTeam,
  signIn,
  startTestServerWith
} from "../test/TestServer.ts"

const limited = (rateLimits: Partial<RateLimitSettings>) =>
  startTestServerWith({ limits: { rateLimits: { ...noRateLimits, ...rateLimits } } })

const assertLimited = (response: CallResult) => {
  assert.strictEqual(response.status, 429, JSON.stringify(response.body))
  assert.deepStrictEqual(response.body, {
    success: false,
    data: "Too many requests; retry later",
    error_code: "RATE_LIMITED",
    request_id: response.headers.get("x-request-id")
  })
  assert.isAtLeast(Number(response.headers.get("retry-after")), 1)
  assert.match(response.headers.get("x-request-id") ?? "", /^req_/)
}

describe("rate limits", () => {
  it.live("per client IP: over the limit every route answers 429 with Retry-After; /health stays served", () =>
    Effect.gen(function* () {
      const server = yield* limited({ perIp: 3 })
      for (let i = 0; i < 3; i++)
        assert.strictEqual((yield* call(server, "GET", "/v2/teams/te-000000000000")).status, 401)
      assertLimited(yield* call(server, "GET", "/v2/teams/te-000000000000"))
      assertLimited(yield* call(server, "GET", "/openapi.json"))
      assert.strictEqual((yield* call(server, "GET", "/health")).status, 200)
    }).pipe(Effect.scoped)
  )

  it.live("X-Forwarded-For names the client only behind a trusted proxy", () =>
    Effect.gen(function* () {
      const direct = yield* limited({ perIp: 1 })
      assert.strictEqual(
        (yield* call(direct, "GET", "/openapi.json", { headers: { "x-forwarded-for": "203.0.113.1" } })).status,
        200
      )
      // Not trusted: a forged header does not buy a new bucket.
      assertLimited(yield* call(direct, "GET", "/openapi.json", { headers: { "x-forwarded-for": "203.0.113.2" } }))

      const proxied = yield* limited({ perIp: 1, trustProxy: true })
      const from = (ip: string) => ({ headers: { "x-forwarded-for": `198.51.100.9, ${ip}` } })
      assert.strictEqual((yield* call(proxied, "GET", "/openapi.json", from("203.0.113.1"))).status, 200)
      assertLimited(yield* call(proxied, "GET", "/openapi.json", from("203.0.113.1")))
      assert.strictEqual((yield* call(proxied, "GET", "/openapi.json", from("203.0.113.2"))).status, 200)
    }).pipe(Effect.scoped)
  )

  it.live(
    "per user: one user over the limit is refused, another from the same address is served; the refused request changes nothing",
    () =>
      Effect.gen(function* () {
        const server = yield* limited({ perUser: 2 })
        const { companyId, teamId, members } = yield* seedTeam(server, ["team_admin", "team_admin"])
        const [first, second] = members as [SeededMember, SeededMember]
        const firstToken = yield* signIn(server, first.account)
        const secondToken = yield* signIn(server, second.account)
        for (let i = 0; i < 2; i++) {
          assert.strictEqual((yield* call(server, "GET", `/v2/teams/${teamId}`, { token: firstToken })).status, 200)
        }
        const teams = yield* countRows(server, "teams")
        const create = yield* call(server, "POST", "/v2/teams", {
          token: firstToken,
          body: {
            entity_nanoid: companyId,
            admin_wallet: privateKeyToAccount(generatePrivateKey()).address,
            name: "Over"
          }
        })
        assertLimited(create)
        assert.strictEqual(yield* countRows(server, "teams"), teams)
        assert.strictEqual((yield* call(server, "GET", `/v2/teams/${teamId}`, { token: secondToken })).status, 200)
        // A token that does not verify is limited by address only, and refused by authentication as before.
        assert.strictEqual((yield* call(server, "GET", `/v2/teams/${teamId}`, { token: `${firstToken}x` })).status, 401)
      }).pipe(Effect.scoped)
  )

  it.live(
    "request bytes per user: large bodies past the budget answer 429 before they are read; others are served",
    () =>
      Effect.gen(function* () {
        const server = yield* limited({ bytesPerUser: 20_000 })
        const { companyId, members } = yield* seedTeam(server, ["team_admin", "team_admin"])
        const [first, second] = members as [SeededMember, SeededMember]
        const firstToken = yield* signIn(server, first.account)
        const secondToken = yield* signIn(server, second.account)
        // 8 KB bodies (an over-long description the contract refuses anyway): two fit in 20 KB, the third does not.
        const large = (token: string) =>
          call(server, "POST", "/v2/teams", {
            token,
            body: {
              entity_nanoid: companyId,
              admin_wallet: privateKeyToAccount(generatePrivateKey()).address,
              name: "Bytes",
              description: "x".repeat(8_000)
            }
          })
        for (let i = 0; i < 2; i++) assert.strictEqual((yield* large(firstToken)).status, 400)
        const teams = yield* countRows(server, "teams")
        assertLimited(yield* large(firstToken))
        assert.strictEqual(yield* countRows(server, "teams"), teams)
        // Small requests carry no body to count; the other user's budget is their own.
        assert.strictEqual((yield* call(server, "GET", "/v2/user/teams", { token: firstToken })).status, 200)
        assert.strictEqual((yield* large(secondToken)).status, 400)
      }).pipe(Effect.scoped)
  )

  it.live("/v1 served in-process is limited once per v1 call, not per v2 call it makes; refused in v1's shape", () =>
    Effect.gen(function* () {
      const server = yield* startTestServerWith({ v1: {}, limits: { rateLimits: { ...noRateLimits, perUser: 3 } } })
      const { members } = yield* seedTeam(server, ["team_admin"])
      const token = yield* signIn(server, (members[0] as SeededMember).account)
      // Each listing of teams makes two v2 calls (the teams, and the team's balance for its svcid).
      for (let i = 0; i < 3; i++) {
        const teams = yield* call(server, "GET", "/v1/teams", { token })
        assert.strictEqual(teams.status, 200, JSON.stringify(teams.body))
      }
      const refused = yield* call(server, "GET", "/v1/teams", { token })
      assert.strictEqual(refused.status, 429)
      assert.deepStrictEqual(refused.body, { message: "Too many requests; retry later" })
      assert.isAtLeast(Number(refused.headers.get("retry-after")), 1)
      // v2's own answers keep v2's envelope.
      assertLimited(yield* call(server, "GET", "/v2/user/teams", { token }))
    }).pipe(Effect.scoped)
  )

  it.live("sign-in has its own stricter limit: a refused challenge stores no nonce; other routes are not touched", () =>
    Effect.gen(function* () {
      const server = yield* limited({ signIn: 2, perIp: 100 })
      const wallet = privateKeyToAccount(generatePrivateKey()).address
      for (let i = 0; i < 2; i++)
        assert.strictEqual((yield* call(server, "GET", `/v2/auth/siwe?wallet=${wallet}`)).status, 200)
      const nonces = yield* countRows(server, "siwe_nonces")
      assertLimited(yield* call(server, "GET", `/v2/auth/siwe?wallet=${wallet}`))
      assertLimited(yield* call(server, "POST", "/v2/auth/verify", { body: { message: "m", sig: "0x00", nonce: "n" } }))
      assert.strictEqual(yield* countRows(server, "siwe_nonces"), nonces)
      assert.strictEqual((yield* call(server, "GET", "/openapi.json")).status, 200)
    }).pipe(Effect.scoped)
  )
})
