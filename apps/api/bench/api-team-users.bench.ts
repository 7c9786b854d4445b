/**
 * Benchmark: `GET /v2/teams/{team_nanoid}/users` (100 users, JWT, MongoDB on jongodb) through the svc API, beside a
 * plain `node:http` handler with the `mongodb` driver doing the same work in the same run: verify the JWT (jose),
 * find the team and the caller's membership, page the memberships, count them, fetch the users, map and serialise.
 *
 * Run: `node apps/api/bench/api-team-users.bench.ts` (starts its own jongodb; appends to bench/RESULTS.md).
 * The load generator runs in a child process so it does not share the servers' event loop.
 */

import { spawn } from "node:child_process"
import { appendFileSync, existsSync, mkdirSync } from "node:fs"
import { createServer } from "node:http"
import { dirname, resolve } from "node:path"
import { startJongodb } from "@svc/adapters/embedded"
import type { Membership } from "@svc/domain/membership"
import { toTeamUser, type User } from "@svc/domain/user"
import { Effect, Layer, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { jwtVerify } from "jose"
import { MongoClient } from "mongodb"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as Server from "../src/Server.ts"
import { addMember, seedTeam, signIn, type TestServer } from "../src/TestServer.ts"
import * as BenchRun from "./BenchRun.ts"

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 32)
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)

/** The load generator (child process): `--load <url> <token> <seconds> <concurrency>` prints {count, p50, p99}. */
const load = async (url: string, token: string, duration: number, workers: number) => {
  const latencies: Array<number> = []
  let errors = 0
  const until = performance.now() + duration * 1000
  const worker = async () => {
    while (performance.now() < until) {
      const started = performance.now()
      const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } })
      const body = await response.text()
      if (response.status !== 200 || body.length < 1000) errors++
      latencies.push(performance.now() - started)
    }
  }
  await Promise.all(Array.from({ length: workers }, worker))
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  process.stdout.write(JSON.stringify({ count: latencies.length, errors, p50: at(0.5), p99: at(0.99), duration }))
}

const runLoad = (url: string, token: string, duration: number) =>
  new Promise<{ count: number; errors: number; p50: number; p99: number; duration: number }>((done, fail) => {
    const child = spawn(process.execPath, [
      import.meta.filename,
      "--load",
      url,
      token,
      String(duration),
      String(concurrency)
    ])
    let out = ""
    child.stdout.on("data", (chunk) => {
      out += chunk
    })
    child.on("exit", (code) => (code === 0 ? done(JSON.parse(out)) : fail(new Error(`load exited ${code}`))))
  })

/** The baseline: node:http + mongodb driver + jose, the same queries and the same JSON. */
const startBaseline = async (uri: string, database: string, secret: string) => {
  const client = await new MongoClient(uri).connect()
  const db = client.db(database)
  const key = new TextEncoder().encode(secret)
  const server = createServer(async (req, res) => {
    const match = /^\/v2\/teams\/(te-[0-9A-Za-z_-]{12})\/users$/.exec(req.url ?? "")
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1]
    if (match === null || token === undefined) {
      res.writeHead(404).end()
      return
    }
    const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"] })
    const teamId = match[1] as string
    const team = await db.collection("teams").findOne({ _id: teamId as never })
    const me = await db.collection("memberships").findOne({ team_nanoid: teamId, user_nanoid: payload.sub })
    if (team === null || me === null) {
      res.writeHead(403).end()
      return
    }
    const [members, total] = await Promise.all([
      db.collection("memberships").find({ team_nanoid: teamId }).sort({ created_at: 1, _id: 1 }).toArray(),
      db.collection("memberships").countDocuments({ team_nanoid: teamId })
    ])
    const users = await db
      .collection("users")
      .find({ _id: { $in: members.map((m) => m.user_nanoid) as never } })
      .toArray()
    const byId = new Map(users.map((u) => [u.nanoid as string, u as unknown as User]))
    const list = (members as unknown as Array<Membership>).flatMap((m) => {
      const user = byId.get(m.user_nanoid)
      return user === undefined ? [] : [toTeamUser(user, m.role, String(team.svc_account))]
    })
    const body = JSON.stringify({
      success: true,
      data: {
        users: list,
        pagination: {
          page: 1,
          count: list.length,
          offset: 0,
          next_page: 2,
          next_offset: list.length,
          has_more: list.length < total
        }
      }
    })
    res.writeHead(200, { "content-type": "application/json" }).end(body)
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => Promise.all([client.close(), new Promise((r) => server.close(r))])
  }
}

const main = Effect.gen(function* () {
  const mongo = yield* startJongodb()
  const database = "bench_team_users"
  const jwtSecret = "bench-secret-0123456789abcdef0123456789abcdef"
  const context = yield* Layer.build(
    Server.layer({
      port: 0,
      storage: { _tag: "mongo", uri: mongo.uri, database },
      jwtSecret: Redacted.make(jwtSecret),
      logRequests: false
    })
  )
  const address = (yield* HttpServer.HttpServer.pipe(Effect.provide(context))).address
  const server: TestServer = {
    baseUrl: HttpServer.formatAddress(address),
    jwtSecret,
    storage: { _tag: "mongo", uri: mongo.uri, database },
    context
  }
  const { teamId, members } = yield* seedTeam(server, ["team_admin"])
  for (let i = 0; i < 99; i++) {
    yield* addMember(
      teamId,
      privateKeyToAccount(generatePrivateKey()).address,
      i % 2 === 0 ? "team_employee" : "team_contractor",
      `bench${i}@team.example`
    ).pipe(Effect.provide(context))
  }
  const token = yield* signIn(server, (members[0] as { account: ReturnType<typeof privateKeyToAccount> }).account)
  const baseline = yield* Effect.promise(() => startBaseline(mongo.uri, database, jwtSecret))
  const path = `/v2/teams/${teamId}/users`

  // Same bytes from both, so the comparison is like for like.
  const [ours, theirs] = yield* Effect.promise(() =>
    Promise.all(
      [server.baseUrl, baseline.url].map((base) =>
        fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json())
      )
    )
  )
  if (JSON.stringify(ours) !== JSON.stringify(theirs)) return yield* Effect.die("baseline and API answer differently")

  type Round = { rps: number; p99: number; errors: number }
  const results: { api: Array<Round>; baseline: Array<Round> } = { api: [], baseline: [] }
  yield* Effect.promise(() => runLoad(`${server.baseUrl}${path}`, token, 1)) // warm-up
  yield* Effect.promise(() => runLoad(`${baseline.url}${path}`, token, 1))
  for (let round = 0; round < rounds; round++) {
    for (const [name, base] of [
      ["api", server.baseUrl],
      ["baseline", baseline.url]
    ] as const) {
      const r = yield* Effect.promise(() => runLoad(`${base}${path}`, token, seconds))
      results[name].push({ rps: r.count / r.duration, p99: r.p99, errors: r.errors })
    }
  }
  yield* Effect.promise(() => baseline.close())
  const summary = (name: "api" | "baseline") => {
    const rs = results[name]
    return {
      rps: rs.reduce((s, r) => s + r.rps, 0) / rs.length,
      p99: rs.reduce((s, r) => s + r.p99, 0) / rs.length,
      errors: rs.reduce((s, r) => s + r.errors, 0)
    }
  }
  const api = summary("api")
  const base = summary("baseline")
  const machine = BenchRun.machine()
  const commit = BenchRun.commit()
  const section = [
    "",
    `## API: GET /v2/teams/{team_nanoid}/users, 100 users (${new Date().toISOString().slice(0, 10)}, ${commit})`,
    "",
    `Machine: ${machine}. jongodb, JWT, ${concurrency} concurrent connections, ${rounds} x ${seconds} s per side, alternating.`,
    "Baseline: node:http + mongodb driver + jose doing the same five queries and the same JSON.",
    "",
    "| server | requests/s | p99 latency (ms) | errors |",
    "|---|---|---|---|",
    `| svc API (Effect HttpApi) | ${api.rps.toFixed(0)} | ${api.p99.toFixed(1)} | ${api.errors} |`,
    `| node:http + mongodb | ${base.rps.toFixed(0)} | ${base.p99.toFixed(1)} | ${base.errors} |`,
    `| ratio API / baseline | ${(api.rps / base.rps).toFixed(2)} | ${(api.p99 / base.p99).toFixed(2)} | |`,
    "",
    "Both sides share one embedded jongodb, which bounds throughput; the ratio is the figure to compare. The machine is",
    "shared with other work, so absolute numbers move between runs.",
    ""
  ].join("\n")
  console.log(section)
  const results_ = resolve(import.meta.dirname, "../../../bench/RESULTS.md")
  mkdirSync(dirname(results_), { recursive: true })
  if (!existsSync(results_)) appendFileSync(results_, "# Benchmark results\n")
  appendFileSync(results_, section)
}).pipe(Effect.scoped)

if (process.argv[2] === "--load") {
  const [, , , url, token, duration, workers] = process.argv
  await load(url ?? "", token ?? "", Number(duration), Number(workers))
} else {
  await Effect.runPromise(main)
  process.exit(0)
}
