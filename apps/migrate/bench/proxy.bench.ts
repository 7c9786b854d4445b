/**
 * Benchmark: the proxy's added latency on `GET /v1/teams/{id}/talent` (100 users) against calling
 * `GET /v2/teams/{team_nanoid}/users` directly, in the same run, on the embedded default (SQLite, one server).
 *
 * Run: `node apps/migrate/bench/proxy.bench.ts` (temporary SQLite file; appends to bench/RESULTS.md).
 * Goal (issue 13): < 20% added latency at p50. Requests are sent one at a time (latency, not throughput) by a load
 * generator in a child process, alternating v2 and v1 rounds.
 */
import { execFile, execFileSync } from "node:child_process"
import { appendFileSync, mkdtempSync, rmSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { SqliteDatabase, SqliteV1IdMap } from "@svc/adapters/sqlite"
import * as Server from "@svc/api/Server"
import { addMember, seedTeam, signIn, type TestServer } from "@svc/api/TestServer"
import { Effect, Layer, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { serveProxy } from "../src/Proxy.ts"

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)

/** The load generator (child): `--load <url> <token> <seconds>` prints {count, p50, p99}, one request at a time. */
const load = async (url: string, token: string, duration: number) => {
  const latencies: Array<number> = []
  let errors = 0
  const until = performance.now() + duration * 1000
  while (performance.now() < until) {
    const started = performance.now()
    const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
    const body = await response.text()
    if (response.status !== 200 || body.length < 1000) errors++
    latencies.push(performance.now() - started)
  }
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  process.stdout.write(JSON.stringify({ count: latencies.length, errors, p50: at(0.5), p99: at(0.99) }))
}

const runLoad = (url: string, token: string, duration: number) =>
  new Promise<{ count: number; errors: number; p50: number; p99: number }>((done, fail) =>
    execFile(process.execPath, [import.meta.filename, "--load", url, token, String(duration)], (error, stdout) =>
      error === null ? done(JSON.parse(stdout)) : fail(error)
    )
  )

const main = Effect.gen(function* () {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-proxy-bench-"))),
    (d) => Effect.sync(() => rmSync(d, { recursive: true, force: true }))
  )
  const filename = join(dir, "svc.db")
  const jwtSecret = "bench-secret-0123456789abcdef0123456789abcdef"
  const context = yield* Layer.build(
    Server.layer({
      port: 0,
      storage: { _tag: "sqlite", filename },
      jwtSecret: Redacted.make(jwtSecret),
      logRequests: false
    })
  )
  const server: TestServer = {
    baseUrl: HttpServer.formatAddress((yield* HttpServer.HttpServer.pipe(Effect.provide(context))).address),
    jwtSecret,
    storage: { _tag: "sqlite", filename },
    context
  }
  const { teamId, members } = yield* seedTeam(server, ["team_admin"])
  for (let i = 0; i < 99; i++)
    yield* addMember(
      teamId,
      privateKeyToAccount(generatePrivateKey()).address,
      i % 2 === 0 ? "team_employee" : "team_contractor",
      `bench${i}@team.example`
    ).pipe(Effect.provide(context))
  const token = yield* signIn(server, (members[0] as { account: ReturnType<typeof privateKeyToAccount> }).account)
  const idMap = yield* Layer.build(SqliteV1IdMap.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename }))))
  const proxy = yield* serveProxy({ target: server.baseUrl, port: 0 }).pipe(Effect.provide(idMap))

  // The v1 client's first look allocates the team's and the users' numbers; the measured calls find them.
  const teams = yield* Effect.promise(() =>
    fetch(`${proxy.url}/v1/teams`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json())
  )
  const v1Team = (teams as { data: Array<{ id: number; nanoid: string }> }).data.find((t) => t.nanoid === teamId)?.id
  const direct = `${server.baseUrl}/v2/teams/${teamId}/users`
  const proxied = `${proxy.url}/v1/teams/${v1Team}/talent`
  yield* Effect.promise(() => runLoad(direct, token, 1))
  yield* Effect.promise(() => runLoad(proxied, token, 1))

  type Round = { p50: number; p99: number; rps: number }
  const results: { v2: Array<Round>; v1: Array<Round> } = { v2: [], v1: [] }
  for (let round = 0; round < rounds; round++)
    for (const [name, url] of [
      ["v2", direct],
      ["v1", proxied]
    ] as const) {
      const r = yield* Effect.promise(() => runLoad(url, token, seconds))
      if (r.errors > 0) return yield* Effect.die(new Error(`${name}: ${r.errors} errors`))
      results[name].push({ p50: r.p50, p99: r.p99, rps: r.count / seconds })
    }
  const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
  const v2 = {
    p50: mean(results.v2.map((r) => r.p50)),
    p99: mean(results.v2.map((r) => r.p99)),
    rps: mean(results.v2.map((r) => r.rps))
  }
  const v1 = {
    p50: mean(results.v1.map((r) => r.p50)),
    p99: mean(results.v1.map((r) => r.p99)),
    rps: mean(results.v1.map((r) => r.rps))
  }
  const added = (v1.p50 / v2.p50 - 1) * 100
  const commit = (() => {
    try {
      return execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim()
    } catch {
      return "unknown"
    }
  })()
  const section = [
    "",
    `## migrate: proxy overhead, GET /v1/teams/{id}/talent vs GET /v2/teams/{team_nanoid}/users, 100 users (${new Date().toISOString().slice(0, 10)}, ${commit})`,
    "",
    `Machine: ${cpus()[0]?.model ?? "cpu"} x${cpus().length}, Node ${process.version}. Embedded SQLite, one API process and the proxy in it, JWT; one request at a time, ${rounds} x ${seconds} s per side, alternating.`,
    "",
    "| path | p50 (ms) | p99 (ms) | requests/s |",
    "|---|---|---|---|",
    `| v2 direct | ${v2.p50.toFixed(2)} | ${v2.p99.toFixed(2)} | ${v2.rps.toFixed(0)} |`,
    `| v1 through the proxy | ${v1.p50.toFixed(2)} | ${v1.p99.toFixed(2)} | ${v1.rps.toFixed(0)} |`,
    `| added latency at p50 | ${added.toFixed(0)}% (${(v1.p50 - v2.p50).toFixed(2)} ms) | | goal < 20% |`,
    "",
    "The proxy's call is the v2 call plus one more local HTTP hop, decoding v2's answer with the contract's schemas,",
    "and mapping the 100 users' ids (two SQLite reads per page of users). Command: `node apps/migrate/bench/proxy.bench.ts`.",
    ""
  ].join("\n")
  console.log(section)
  appendFileSync(resolve(import.meta.dirname, "../../../bench/RESULTS.md"), section)
}).pipe(Effect.scoped)

if (process.argv[2] === "--load") {
  await load(process.argv[3] ?? "", process.argv[4] ?? "", Number(process.argv[5]))
} else {
  await Effect.runPromise(main)
  process.exit(0)
}
