/**
 * Benchmark: `GET /v2/teams/{team_nanoid}/users` (100 users, JWT) through the svc API, beside a plain `node:http`
 * handler doing the same work on the same database in the same run: verify the JWT (jose), find the team and the
 * caller's membership, page the memberships, count them, fetch the users, map and serialise.
 *
 * Three runs: the embedded default (SQLite file) empty, the same with 10,000 users and 100,000 payments already
 * stored, and MongoDB on jongodb (empty; for the record). The baseline uses `node:sqlite` or the `mongodb` driver.
 * The empty SQLite run also serves the same route from a second API server without the metrics middleware
 * (`httpMetrics: false`), in the same rounds: what counting and timing each request costs (issue 22).
 *
 * Run: `node apps/api/bench/api-team-users.bench.ts` (starts its own jongodb; appends to bench/RESULTS.md).
 * `BENCH_SMOKE=1` runs the same paths with 1-second rounds and a small load (500 users, 2,000 payments) and writes
 * nothing.
 * The load generator runs in a child process so it does not share the servers' event loop.
 */

import { spawn } from "node:child_process"
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { startJongodb } from "@svc/adapters/embedded"
import type { Membership } from "@svc/domain/membership"
import type { Team } from "@svc/domain/team"
import { toTeamUser, type User } from "@svc/domain/user"
import { Effect } from "effect"
import { jwtVerify } from "jose"
import { MongoClient } from "mongodb"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import type * as Server from "../src/Server.ts"
import { addMember, seedTeam, signIn, startTestServerWith } from "../test/TestServer.ts"
import { storeBulk } from "./BenchData.ts"
import * as BenchRun from "./BenchRun.ts"

const smoke = process.env.BENCH_SMOKE === "1"
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? (smoke ? 4 : 32))
const seconds = Number(process.env.BENCH_SECONDS ?? (smoke ? 1 : 5))
const rounds = Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : 2))
/** What the loaded run stores besides the team. */
const bulk = smoke ? { users: 500, payments: 2_000 } : { users: 10_000, payments: 100_000 }

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

/** What both baselines answer: the team's users (no paging asked), as the API shapes them. */
const teamUsersBody = (members: ReadonlyArray<Membership>, users: ReadonlyArray<User>, total: number) => {
  const byId = new Map(users.map((u) => [u.nanoid as string, u]))
  const list = members.flatMap((m) => {
    const user = byId.get(m.user_nanoid)
    return user === undefined ? [] : [toTeamUser(user, m, "")]
  })
  return JSON.stringify({
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
}

/** A node:http server around `handle` (the team id and the verified caller), on a free loopback port. */
const serve = async (
  secret: string,
  handle: (team: string, caller: string) => Promise<string | undefined> | string | undefined,
  close: () => unknown
) => {
  const key = new TextEncoder().encode(secret)
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const match = /^\/v2\/teams\/(te-[0-9A-Za-z_-]{12})\/users$/.exec(req.url ?? "")
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? "")?.[1]
    if (match === null || token === undefined) {
      res.writeHead(404).end()
      return
    }
    const { payload } = await jwtVerify(token, key, { algorithms: ["HS256"] })
    const body = await handle(match[1] as string, String(payload.sub))
    if (body === undefined) res.writeHead(403).end()
    else res.writeHead(200, { "content-type": "application/json" }).end(body)
  })
  await new Promise<void>((ready) => server.listen(0, "127.0.0.1", ready))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await new Promise((r) => server.close(r))
      await close()
    }
  }
}

/** The SQLite baseline: node:http + node:sqlite (its own connection to the same file) + jose. */
const startSqliteBaseline = (filename: string, secret: string) => {
  const db = new DatabaseSync(filename)
  const team = db.prepare("SELECT record FROM teams WHERE nanoid = ?")
  const membership = db.prepare("SELECT record FROM memberships WHERE team_nanoid = ? AND user_nanoid = ?")
  const members = db.prepare("SELECT record FROM memberships WHERE team_nanoid = ? ORDER BY created_at, nanoid")
  const count = db.prepare("SELECT count(*) AS total FROM memberships WHERE team_nanoid = ?")
  const users = db.prepare("SELECT record FROM users WHERE nanoid IN (SELECT value FROM json_each(?))")
  const parse = <A>(row: Record<string, unknown> | undefined) =>
    row === undefined ? undefined : (JSON.parse(row.record as string) as A)
  return serve(
    secret,
    (teamId, caller) => {
      const found = parse<Team>(team.get(teamId))
      if (found === undefined || membership.get(teamId, caller) === undefined) return undefined
      const list = members.all(teamId).map((row) => parse<Membership>(row) as Membership)
      const total = Number(count.get(teamId)?.total ?? 0)
      const profiles = users.all(JSON.stringify(list.map((m) => m.user_nanoid))).map((row) => parse<User>(row) as User)
      return teamUsersBody(list, profiles, total)
    },
    () => db.close()
  )
}

/** The MongoDB baseline: node:http + mongodb driver + jose, the same five queries. */
const startMongoBaseline = async (uri: string, database: string, secret: string) => {
  const client = await new MongoClient(uri).connect()
  const db = client.db(database)
  return serve(
    secret,
    async (teamId, caller) => {
      const team = await db.collection("teams").findOne({ _id: teamId as never })
      const me = await db.collection("memberships").findOne({ team_nanoid: teamId, user_nanoid: caller })
      if (team === null || me === null) return undefined
      const [members, total] = await Promise.all([
        db.collection("memberships").find({ team_nanoid: teamId }).sort({ created_at: 1, _id: 1 }).toArray(),
        db.collection("memberships").countDocuments({ team_nanoid: teamId })
      ])
      const users = await db
        .collection("users")
        .find({ _id: { $in: members.map((m) => m.user_nanoid) as never } })
        .toArray()
      return teamUsersBody(members as unknown as Array<Membership>, users as unknown as Array<User>, total)
    },
    () => client.close()
  )
}

type Round = { rps: number; p99: number; errors: number }

/**
 * One run: a server on `storage`, a team of 100, optionally the bulk data, then alternating load on API and baseline
 * (and, with `withoutMetrics`, on a second API server on the same database without the metrics middleware).
 */
const measure = (storage: Server.StorageOptions, loaded: boolean, withoutMetrics = false) =>
  Effect.gen(function* () {
    const jwtSecret = "bench-secret-0123456789abcdef0123456789abcdef"
    const server = yield* startTestServerWith({ storage, jwtSecret })
    const { teamId, members } = yield* seedTeam(server, ["team_admin"])
    for (let i = 0; i < 99; i++) {
      yield* addMember(
        teamId,
        privateKeyToAccount(generatePrivateKey()).address,
        i % 2 === 0 ? "team_employee" : "team_contractor",
        `bench${i}@team.example`
      ).pipe(Effect.provide(server.context))
    }
    if (loaded) {
      const started = performance.now()
      const stored = yield* storeBulk(bulk).pipe(Effect.provide(server.context))
      console.error(`stored ${JSON.stringify(stored)} in ${((performance.now() - started) / 1000).toFixed(1)} s`)
    }
    const token = yield* signIn(server, (members[0] as { account: ReturnType<typeof privateKeyToAccount> }).account)
    const baseline = yield* Effect.promise(() =>
      storage._tag === "sqlite"
        ? startSqliteBaseline(storage.filename, jwtSecret)
        : startMongoBaseline(storage.uri, storage.database ?? "svc", jwtSecret)
    )
    const path = `/v2/teams/${teamId}/users`
    // Same bytes from both, so the comparison is like for like.
    const [ours, theirs] = yield* Effect.promise(() =>
      Promise.all(
        [server.baseUrl, baseline.url].map((base) =>
          fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text())
        )
      )
    )
    if (ours !== theirs) return yield* Effect.die(`baseline and API answer differently:\n${ours}\n${theirs}`)
    // The same storage and secret: the API as it is, less the metrics middleware.
    const bare = withoutMetrics ? yield* startTestServerWith({ storage, jwtSecret, httpMetrics: false }) : undefined
    const sides = [
      ["api", server.baseUrl],
      ["baseline", baseline.url],
      ...(bare === undefined ? [] : [["bare", bare.baseUrl] as const])
    ] as const
    const results: Record<"api" | "baseline" | "bare", Array<Round>> = { api: [], baseline: [], bare: [] }
    if (!smoke) {
      for (const [, base] of sides) yield* Effect.promise(() => runLoad(`${base}${path}`, token, 1)) // warm-up
    }
    for (let round = 0; round < rounds; round++) {
      for (const [name, base] of sides) {
        const r = yield* Effect.promise(() => runLoad(`${base}${path}`, token, seconds))
        results[name].push({ rps: r.count / r.duration, p99: r.p99, errors: r.errors })
      }
    }
    yield* Effect.promise(() => baseline.close())
    const summary = (name: "api" | "baseline" | "bare") => {
      const rs = results[name]
      return {
        rps: rs.reduce((s, r) => s + r.rps, 0) / Math.max(1, rs.length),
        p99: rs.reduce((s, r) => s + r.p99, 0) / Math.max(1, rs.length),
        errors: rs.reduce((s, r) => s + r.errors, 0)
      }
    }
    return { api: summary("api"), baseline: summary("baseline"), bare: summary("bare") }
  }).pipe(Effect.scoped)

const main = Effect.gen(function* () {
  const directory = mkdtempSync(join(tmpdir(), "bench-users-"))
  const sqliteEmpty = yield* measure({ _tag: "sqlite", filename: join(directory, "empty.db") }, false, true)
  const sqliteLoaded = yield* measure({ _tag: "sqlite", filename: join(directory, "loaded.db") }, true)
  rmSync(directory, { recursive: true, force: true })
  const mongo = yield* startJongodb()
  const mongoEmpty = yield* measure({ _tag: "mongo", uri: mongo.uri, database: "bench_team_users" }, false)
  const row = (name: string, r: typeof sqliteEmpty) =>
    `| ${name} | ${r.api.rps.toFixed(0)} | ${r.api.p99.toFixed(1)} | ${r.baseline.rps.toFixed(0)} | ${r.baseline.p99.toFixed(1)} | ${(r.api.rps / r.baseline.rps).toFixed(2)} | ${r.api.errors + r.baseline.errors} |`
  const section = [
    "",
    `## API: GET /v2/teams/{team_nanoid}/users, 100 users (${new Date().toISOString().slice(0, 10)}, ${BenchRun.commit()})`,
    "",
    `Machine: ${BenchRun.machine()}. JWT, ${concurrency} concurrent connections from a separate process, ${rounds} x ${seconds} s per side, alternating.`,
    "Baseline: node:http + jose + node:sqlite (or the mongodb driver) doing the same five queries on the same database",
    "and answering the same bytes.",
    "",
    "| storage | API requests/s | API p99 (ms) | baseline requests/s | baseline p99 (ms) | ratio API / baseline | errors |",
    "|---|---|---|---|---|---|---|",
    row("SQLite (embedded default), empty", sqliteEmpty),
    row(
      `SQLite, with ${bulk.users.toLocaleString("en")} users and ${bulk.payments.toLocaleString("en")} payments stored`,
      sqliteLoaded
    ),
    row("MongoDB on jongodb, empty (for the record)", mongoEmpty),
    "",
    `Metrics middleware (empty SQLite, the same rounds): ${sqliteEmpty.api.rps.toFixed(0)} requests/s with it, ${sqliteEmpty.bare.rps.toFixed(0)} without: it costs ${((1 - sqliteEmpty.api.rps / sqliteEmpty.bare.rps) * 100).toFixed(1)} % of the rate (goal under 5 %).`,
    "",
    `Loaded / empty, API requests/s: ${(sqliteLoaded.api.rps / sqliteEmpty.api.rps).toFixed(2)}. The machine is shared with other work, so`,
    "absolute numbers move between runs; the ratios are the figures to compare. Command:",
    "`node apps/api/bench/api-team-users.bench.ts`.",
    ""
  ].join("\n")
  console.log(section)
  if (smoke) return
  const results = resolve(import.meta.dirname, "../../../bench/RESULTS.md")
  mkdirSync(dirname(results), { recursive: true })
  if (!existsSync(results)) appendFileSync(results, "# Benchmark results\n")
  appendFileSync(results, section)
}).pipe(Effect.scoped)

if (process.argv[2] === "--load") {
  const [, , , url, token, duration, workers] = process.argv
  await load(url ?? "", token ?? "", Number(duration), Number(workers))
} else {
  await Effect.runPromise(main)
  process.exit(0)
}
