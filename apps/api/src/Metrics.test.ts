/**
 * `GET /metrics` (issue 22, item 1): the Prometheus text format, HTTP requests counted and timed by method, route
 * template and status (never the raw path), the domain's counters beside them; behind a bearer token when one is set.
 */

import { assert, describe, it } from "@effect/vitest"
import { freePort } from "@svc/adapters/embedded"
import { Effect, Redacted } from "effect"
import { call, seedTeam, signIn, startTestServerWith } from "../test/TestServer.ts"

const metricsOf = (baseUrl: string, token?: string) =>
  Effect.promise(async () => {
    const response = await fetch(`${baseUrl}/metrics`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` }
    })
    return { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() }
  })

describe("metrics", () => {
  it.live(
    "requests by method, route template and status, never the raw path; bearer-protected when a token is set",
    () =>
      Effect.gen(function* () {
        const server = yield* startTestServerWith({ metrics: { token: Redacted.make("metrics-secret-0123456789") } })
        const { teamId, members } = yield* seedTeam(server, ["team_admin"])
        const token = yield* signIn(server, members[0]!.account)
        for (let i = 0; i < 3; i++) {
          assert.strictEqual((yield* call(server, "GET", `/v2/teams/${teamId}`, { token })).status, 200)
        }
        assert.strictEqual((yield* call(server, "GET", "/v2/teams/te-AAAAAAAAAAAA", { token })).status, 404)

        assert.strictEqual((yield* metricsOf(server.baseUrl)).status, 401)
        assert.strictEqual((yield* metricsOf(server.baseUrl, "wrong")).status, 401)
        const metrics = yield* metricsOf(server.baseUrl, "metrics-secret-0123456789")
        assert.strictEqual(metrics.status, 200)
        assert.match(metrics.type, /^text\/plain/)
        const line = (status: string) =>
          metrics.text
            .split("\n")
            .find(
              (l) =>
                l.startsWith("svc_http_requests_total{") &&
                l.includes('method="GET"') &&
                l.includes('route="/v2/teams/{team_nanoid}"') &&
                l.includes(`status="${status}"`)
            )
        assert.match(line("200") ?? "", / 3$/)
        assert.match(line("404") ?? "", / 1$/)
        assert.include(metrics.text, "svc_http_request_duration_seconds_bucket{")
        assert.notInclude(metrics.text, teamId)
      }).pipe(Effect.scoped)
  )

  it.live("on METRICS_PORT: alone on its own port, without a token, and not on the API's", () =>
    Effect.gen(function* () {
      const port = yield* freePort
      const server = yield* startTestServerWith({ metrics: { port } })
      assert.strictEqual((yield* call(server, "GET", "/health")).status, 200)
      const scraped = `http://127.0.0.1:${port}`
      const metrics = yield* metricsOf(scraped)
      assert.strictEqual(metrics.status, 200)
      assert.match(metrics.text, /^svc_http_requests_total\{.*route="\/health".*\} 1$/m)
      assert.strictEqual((yield* metricsOf(server.baseUrl)).status, 404)
      assert.strictEqual((yield* call({ baseUrl: scraped }, "GET", "/health")).status, 404)
    }).pipe(Effect.scoped)
  )

  it.live("rate-limit refusals are counted by the limit that refused", () =>
    Effect.gen(function* () {
      const server = yield* startTestServerWith({
        metrics: {},
        limits: { rateLimits: { perIp: 2, perUser: 0, signIn: 0, trustProxy: false } }
      })
      const statuses = []
      for (let i = 0; i < 3; i++) statuses.push((yield* call(server, "GET", "/v2/user/teams")).status)
      assert.strictEqual(statuses[2], 429)
      const metrics = yield* metricsOf(server.baseUrl)
      assert.match(metrics.text, /^svc_rate_limited_total\{limit="ip"\} 1$/m)
    }).pipe(Effect.scoped)
  )

  it.live("not served unless asked for", () =>
    Effect.gen(function* () {
      const server = yield* startTestServerWith()
      assert.strictEqual((yield* metricsOf(server.baseUrl)).status, 404)
    }).pipe(Effect.scoped)
  )
})
