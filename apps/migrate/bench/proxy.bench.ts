/**
 * Benchmark: the added latency of v1 on `GET /v1/teams/{id}/talent` (100 users) against calling
 * `GET /v2/teams/{team_nanoid}/users` directly, in the same run, on the embedded default (SQLite, one server): through
 * the proxy (its own HTTP server in front of the API), and on the API's own `/v1` (in-process, decision 0074).
 *
 * Run: `node apps/migrate/bench/proxy.bench.ts` (temporary SQLite file; appends to bench/RESULTS.md).
 * Goal (issues 13, 19): < 20% added latency at p50. Requests are sent one at a time (latency, not throughput) by a
 * load generator in a child process, the three paths in turn, so all meet the same load on a shared machine.
 */
import { execFile, execFileSync } from "node:child_process"
import { appendFileSync, mkdtempSync, rmSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { SqliteDatabase, SqliteV1IdMap } from "@svc/adapters/sqlite"
import * as Server from "@svc/api/Server"
import { addMember, seedTeam, signIn, type TestServer } from "@svc/api/TestServer"
import { Effect, Layer, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { serveProxy } from "../src/Proxy.ts"

/** `BENCH_SMOKE=1`: the same paths in one 1-second round, written nowhere. */
const smoke = process.env.BENCH_SMOKE === "1"
const seconds = Number(process.env.BENCH_SECONDS ?? (smoke ? 1 : 5))
const rounds = Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : 3))

type Side = { count: number; errors: number; p50: number; p99: number }

/**
 * The load generator (child): `--load <token> <seconds> <url>...` sends one request at a time, taking the URLs in
 * turn, so every side meets the same machine load; prints {count, errors, p50, p99} per URL.
 */
const load = async (token: string, duration: number, urls: ReadonlyArray<string>) => {
  const latencies = urls.map(() => [] as Array<number>)
  const errors = urls.map(() => 0)
  const until = performance.now() + duration * 1000
  for (let turn = 0; performance.now() < until; turn++) {
    const side = turn % urls.length
    const started = performance.now()
    const response = await fetch(urls[side] as string, { headers: { authorization: `Bearer ${token}` } })
    const body = await response.text()
    if (response.status !== 200 || body.length < 1000) errors[side] = (errors[side] ?? 0) + 1
    latencies[side]?.push(performance.now() - started)
  }
  const sides = latencies.map((list, side): Side => {
    list.sort((a, b) => a - b)
    const at = (q: number) => list[Math.min(list.length - 1, Math.floor(q * list.length))] ?? 0
    return { count: list.length, errors: errors[side] ?? 0, p50: at(0.5), p99: at(0.99) }
  })
  process.stdout.write(JSON.stringify(sides))
}

const runLoad = (token: string, duration: number, urls: ReadonlyArray<string>) =>
  new Promise<Array<Side>>((done, fail) =>
    execFile(process.execPath, [import.meta.filename, "--load", token, String(duration), ...urls], (error, stdout) =>
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
      logRequests: false,
      v1: {},
      // A load from one address: the rate limits (decision 0035) are not what is measured.
      rateLimits: { perIp: 0, perUser: 0, signIn: 0, trustProxy: false }
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
  const inProcess = `${server.baseUrl}/v1/teams/${v1Team}/talent`
  const urls = [direct, proxied, inProcess]
  yield* Effect.promise(() => runLoad(token, 1, urls))

  type Round = { p50: number; p99: number; rps: number }
  const results: { v2: Array<Round>; v1: Array<Round>; in: Array<Round> } = { v2: [], v1: [], in: [] }
  for (let round = 0; round < rounds; round++) {
    const [v2Side, v1Side, inSide] = yield* Effect.promise(() => runLoad(token, seconds, urls))
    for (const [name, side] of [
      ["v2", v2Side],
      ["v1", v1Side],
      ["in", inSide]
    ] as const) {
      if (side === undefined || side.errors > 0) return yield* Effect.die(new Error(`${name}: errors`))
      results[name].push({ p50: side.p50, p99: side.p99, rps: side.count / seconds })
    }
  }
  const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / xs.length
  const summary = (rs: ReadonlyArray<Round>) => ({
    p50: mean(rs.map((r) => r.p50)),
    p99: mean(rs.map((r) => r.p99)),
    rps: mean(rs.map((r) => r.rps))
  })
  const v2 = summary(results.v2)
  const v1 = summary(results.v1)
  const inside = summary(results.in)
  const added = (v1.p50 / v2.p50 - 1) * 100
  const addedInside = (inside.p50 / v2.p50 - 1) * 100
  const commit = (() => {
    try {
      return execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim()
    } catch {
      return "unknown"
    }
  })()
  const section = [
    "",
    `## migrate: v1 overhead, GET /v1/teams/{id}/talent vs GET /v2/teams/{team_nanoid}/users, 100 users (${new Date().toISOString().slice(0, 10)}, ${commit})`,
    "",
    `Machine: ${cpus()[0]?.model ?? "cpu"} x${cpus().length}, Node ${process.version}. Embedded SQLite, one API process serving /v1 itself and the proxy in it, JWT; one request at a time, the three paths in turn, ${rounds} x ${seconds} s; load average at the start ${loadavg()
      .map((l) => l.toFixed(1))
      .join(", ")}.`,
    "",
    "| path | p50 (ms) | p99 (ms) | requests/s (each side, taking turns) |",
    "|---|---|---|---|",
    `| v2 direct | ${v2.p50.toFixed(2)} | ${v2.p99.toFixed(2)} | ${v2.rps.toFixed(0)} |`,
    `| v1 through the proxy | ${v1.p50.toFixed(2)} | ${v1.p99.toFixed(2)} | ${v1.rps.toFixed(0)} |`,
    `| v1 on the API (in-process) | ${inside.p50.toFixed(2)} | ${inside.p99.toFixed(2)} | ${inside.rps.toFixed(0)} |`,
    `| added at p50, proxy | ${added.toFixed(0)}% (${(v1.p50 - v2.p50).toFixed(2)} ms) | | |`,
    `| added at p50, in-process | ${addedInside.toFixed(0)}% (${(inside.p50 - v2.p50).toFixed(2)} ms) | | goal < 20% |`,
    "",
    "The proxy's call is the v2 call plus one more local HTTP hop; the in-process call runs the v2 route in the API's",
    "own process, with no second socket. Both read v2's JSON and map the 100 users' ids (cached after the first call).",
    "Command: `node apps/migrate/bench/proxy.bench.ts`.",
    ""
  ].join("\n")
  console.log(section)
  if (!smoke) appendFileSync(resolve(import.meta.dirname, "../../../bench/RESULTS.md"), section)
}).pipe(Effect.scoped)

if (process.argv[2] === "--load") {
  await load(process.argv[3] ?? "", Number(process.argv[4]), process.argv.slice(5))
} else {
  await Effect.runPromise(main)
  process.exit(0)
}
