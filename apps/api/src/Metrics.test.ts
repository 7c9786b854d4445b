/**
 * `GET /metrics` (issue 22, item 1): the Prometheus text format, HTTP requests counted and timed by method, route
 * template and status (never the raw path), the domain's counters beside them; behind a bearer token when one is set.
 */

import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { freePort } from "@svc/adapters/embedded"
import { Effect, Redacted } from "effect"
import { call, seedTeam, signIn, startTestServerWith } from "../test/TestServer.ts"

const metricsOf = (baseUrl: string, token?: string, scheme = "Bearer") =>
  Effect.promise(async () => {
    const response = await fetch(`${baseUrl}/metrics`, {
      headers: token === undefined ? {} : { authorization: `${scheme} ${token}` }
    })
    return { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() }
  })

/** The counters docs/operations.md lists under "Metrics". */
const documentedCounters = () => {
  const doc = readFileSync(new URL("../../../docs/operations.md", import.meta.url), "utf8")
  const section = doc.slice(doc.indexOf("## Metrics"), doc.indexOf("\n## ", doc.indexOf("## Metrics") + 1))
  return [...new Set(Array.from(section.matchAll(/`(svc_[a-z_]+_total)`/g), ([, name]) => name as string))]
}

describe("metrics", () => {
  // First in the file: the counters of this worker's registry have not counted anything yet.
  it.live("every counter docs/operations.md lists is in the first scrape, at zero, on either listener", () =>
    Effect.gen(function* () {
      const counters = documentedCounters()
      assert.includeMembers(counters, ["svc_http_requests_total", "svc_payment_requests_failed_total"])
      const present = (text: string, value: string) => {
        for (const counter of counters)
          assert.match(text, new RegExp(`^${counter}(\\{[^}]*\\})? ${value}$`, "m"), counter)
      }
      const server = yield* startTestServerWith({ metrics: {} })
      present((yield* metricsOf(server.baseUrl)).text, "0")
      // On METRICS_PORT's listener too (the registry is the process's: the scrape above counted by now).
      const port = yield* freePort
      yield* startTestServerWith({ metrics: { port } })
      present((yield* metricsOf(`http://127.0.0.1:${port}`)).text, "\\d+")
    }).pipe(Effect.scoped)
  )

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
        assert.strictEqual((yield* metricsOf(server.baseUrl, "metrics-secret-0123456789", "Basic")).status, 401)
        // The scheme in any letter case, as every route reads it (RFC 9110 §11.1).
        for (const scheme of ["bearer", "BEARER", "Bearer  "]) {
          assert.strictEqual(
            (yield* metricsOf(server.baseUrl, "metrics-secret-0123456789", scheme)).status,
            200,
            scheme
          )
          const headers = { authorization: `${scheme} ${token}` }
          assert.strictEqual((yield* call(server, "GET", `/v2/teams/${teamId}`, { headers })).status, 200, scheme)
        }
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
        assert.match(line("200") ?? "", / 6$/)
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
