/**
 * Benchmark (issue 14, defect 10; issue 22, item 5): the memory and the database of the embedded server (`npm start`)
 * under rounds of a sustained mixed load. After each round the API process is asked (over its inspector) to collect
 * garbage and report `process.memoryUsage()`; its RSS and anvil's (a child process, measured apart) are read from
 * `/proc`. The SQLite file is measured too (its size, its WAL, its free pages, and through `dbstat` the bytes of the
 * tables retention prunes apart from the records it keeps), with retention windows of `SOAK_RETENTION_SECONDS`
 * (default 60) checked every 10 s. Flat means no growth round over round after the first (warm-up) rounds.
 *
 * The load, from a child process so the client does not share the server's event loop: sign-in (SIWE challenge and
 * verify), `GET /v2/teams/{id}/users`, `GET /v2/balance`, `POST /v2/payments` then a signed `PUT /v2/payments`
 * executed on anvil (some issued twice with an `Idempotency-Key`, then executed), each delivered as webhooks to a
 * local receiver, invites (a mail each), and refused requests (401, 400, 404, 405, 413).
 *
 * Run: `node apps/api/bench/soak.bench.ts` (Linux: reads `/proc`). `SOAK_ROUNDS` (default 5), `SOAK_SECONDS` (default
 * 30), `SOAK_CONCURRENCY` (default 8), `SOAK_SERVER_LOG` (a file for the server's log; default none). It prints its
 * table and appends it to bench/RESULTS.md.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomUUID } from "node:crypto"
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import * as BenchRun from "./BenchRun.ts"

/** `BENCH_SMOKE=1`: the same paths in two 3-second rounds, written nowhere. */
const smoke = process.env.BENCH_SMOKE === "1"
const rounds = Number(process.env.SOAK_ROUNDS ?? (smoke ? 2 : 5))
const seconds = Number(process.env.SOAK_SECONDS ?? (smoke ? 3 : 30))
const concurrency = Number(process.env.SOAK_CONCURRENCY ?? (smoke ? 2 : 8))
const retentionSeconds = Number(process.env.SOAK_RETENTION_SECONDS ?? (smoke ? 1 : 60))
const main = resolve(import.meta.dirname, "../src/main.ts")

// biome-ignore lint/suspicious/noExplicitAny: the load reads arbitrary JSON bodies
type Json = any

/** What one round of load did: requests by status. */
interface LoadResult {
  readonly requests: number
  readonly byStatus: Record<string, number>
}

/** The load generator (child process): `--load <base> <team> <adminKey> <seconds> <concurrency>`. */
const load = async (base: string, team: string, adminKey: `0x${string}`, duration: number, workers: number) => {
  const admin = privateKeyToAccount(adminKey)
  const byStatus: Record<string, number> = {}
  let requests = 0
  const send = async (method: string, path: string, init: { token?: string; body?: unknown; raw?: string } = {}) => {
    const headers: Record<string, string> = {}
    if (init.token !== undefined) headers.authorization = `Bearer ${init.token}`
    if (init.body !== undefined || init.raw !== undefined) headers["content-type"] = "application/json"
    const response = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(init.raw !== undefined
        ? { body: init.raw }
        : init.body === undefined
          ? {}
          : { body: JSON.stringify(init.body) })
    })
    const text = await response.text()
    requests++
    byStatus[response.status] = (byStatus[response.status] ?? 0) + 1
    return { status: response.status, body: text.startsWith("{") ? (JSON.parse(text) as Json) : undefined }
  }
  const signIn = async (account: PrivateKeyAccount) => {
    const challenge = await send("GET", `/v2/auth/siwe?wallet=${account.address}`)
    const sig = await account.signMessage({ message: challenge.body.data.siwe })
    const verified = await send("POST", "/v2/auth/verify", {
      body: { message: challenge.body.data.siwe, sig, nonce: challenge.body.data.nonce }
    })
    return verified.body.data.jwt as string
  }
  const token = await signIn(admin)
  // The team's webhooks go to a receiver in this process that takes every delivery.
  const receiver = createServer((request, response) => {
    request.resume()
    request.on("end", () => response.writeHead(204).end())
  })
  await new Promise<void>((listening) => receiver.listen(0, "127.0.0.1", listening))
  const hook = await send("POST", "/v2/webhooks", {
    token,
    body: {
      team_nanoid: team,
      url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      events: ["payment.sent", "payment.group.created"],
      name: "soak"
    }
  })
  const users = await send("GET", `/v2/teams/${team}/users`, { token })
  const payee = (users.body.data.users as Array<{ nanoid: string; payable: boolean }>).find((u) => u.payable)?.nanoid
  const pay = async (n: number) => {
    const body = {
      from: team,
      to: [{ to: payee, amount_cents: 1, currency_symbol: "USD", invoice_description: `soak ${n}` }],
      pay_now: true
    }
    const issued = await send("POST", "/v2/payments", { token, body })
    if (issued.status !== 200) return
    const bundle = issued.body.data as TypedDataBundle
    const signature = await admin.signTypedData(signableOf(bundle) as never)
    await send("PUT", "/v2/payments", {
      token,
      body: { ...body, signer: admin.address, typed_data: bundle.typed_data, signature }
    })
  }
  const refused = [
    () => send("GET", `/v2/teams/${team}/users`, { token: "not.a.jwt" }),
    () => send("GET", `/v2/teams/${team}/users?offset=-1`, { token }),
    () => send("GET", "/v2/no-such-route", { token }),
    () => send("PATCH", `/v2/teams/${team}/users`, { token }),
    () => send("POST", "/v2/payments", { token, raw: "{not json" }),
    () => send("POST", "/v2/payments", { token, body: { from: team, to: "x".repeat(3_000_000) } }),
    () => send("GET", "/v2/teams/te-000000000000/users", { token }),
    () => send("POST", "/v2/auth/verify", { body: { message: "x", sig: "0x00", nonce: "nope" } })
  ]
  const until = performance.now() + duration * 1000
  let n = 0
  const worker = async () => {
    while (performance.now() < until) {
      const i = n++
      const step = i % 10
      try {
        if (step === 0) await signIn(admin)
        else if (step <= 3) await send("GET", `/v2/teams/${team}/users`, { token })
        else if (step === 4) await send("GET", `/v2/balance?nanoid=${team}`, { token })
        else if (step <= 6) await pay(i)
        else if (step === 7) {
          // The same Idempotency-Key twice: the second is answered from the store.
          const key = randomUUID()
          const body = {
            from: team,
            to: [{ to: payee, amount_cents: 2, currency_symbol: "USD", invoice_description: `idem ${i}` }],
            pay_now: true
          }
          let issued: TypedDataBundle | undefined
          for (let k = 0; k < 2; k++) {
            const response = await fetch(`${base}/v2/payments`, {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
              body: JSON.stringify(body)
            })
            const text = await response.text()
            requests++
            byStatus[response.status] = (byStatus[response.status] ?? 0) + 1
            if (response.status === 200) issued = JSON.parse(text).data as TypedDataBundle
          }
          // Executed too: typed data left unexecuted counts against the team's budget (docs/payments.md), and a
          // soak that left a thousand of them would see its payments refused 409 from then on.
          if (issued !== undefined) {
            const signature = await admin.signTypedData(signableOf(issued) as never)
            await send("PUT", "/v2/payments", {
              token,
              body: { ...body, signer: admin.address, typed_data: issued.typed_data, signature }
            })
          }
        } else if (i % 40 === 8) {
          await send("POST", "/v2/invites", {
            token,
            body: { nanoid: team, invites: [{ email: `soak-${randomUUID()}@example.com` }], role: "team_employee" }
          })
        } else await (refused[i % refused.length] as () => Promise<unknown>)()
      } catch {
        byStatus.failed = (byStatus.failed ?? 0) + 1
      }
    }
  }
  await Promise.all(Array.from({ length: workers }, worker))
  // Its receiver goes with this round: so does the endpoint (what it still had to deliver then fails, and is pruned).
  await send("DELETE", `/v2/webhooks/${hook.body.data.webhook_nanoid}`, { token })
  receiver.close()
  process.stdout.write(JSON.stringify({ requests, byStatus } satisfies LoadResult))
}

const runLoad = (base: string, team: string, key: string) =>
  new Promise<LoadResult>((done, fail) => {
    const child = spawn(
      process.execPath,
      [import.meta.filename, "--load", base, team, key, String(seconds), String(concurrency)],
      { stdio: ["ignore", "pipe", "inherit"] }
    )
    let out = ""
    child.stdout.on("data", (chunk) => {
      out += chunk
    })
    child.on("exit", (code) => (code === 0 ? done(JSON.parse(out)) : fail(new Error(`load exited ${code}`))))
  })

/** The embedded server as `npm start` runs it, with its inspector on a free port; resolved once it serves. */
const startServer = (dataDir: string) =>
  new Promise<{ child: ChildProcess; base: string; team: string; key: string; rpcUrl: string; inspector: string }>(
    (done, fail) => {
      // The rate limits run (their buckets are part of what a soak must show bounded) but never refuse: the load
      // comes from one address, many times over the per-IP default.
      const env: Record<string, string | undefined> = {
        ...process.env,
        PORT: "0",
        SVC_DATA_DIR: dataDir,
        RATE_LIMIT_PER_IP: "100000000",
        RATE_LIMIT_PER_USER: "100000000",
        RATE_LIMIT_SIGN_IN: "100000000",
        ...Object.fromEntries(
          ["EVENTS", "DELIVERIES", "REQUESTS", "MAILS", "TRANSACTIONS"].map((kind) => [
            `RETENTION_${kind}_DAYS`,
            String(retentionSeconds / 86_400)
          ])
        ),
        RETENTION_EVERY_MS: smoke ? "500" : "10000"
      }
      for (const name of [
        "MONGODB_URI",
        "JWT_SECRET",
        "PUBLIC_BASE_URL",
        "RPC_URL",
        "RELAYER_PRIVATE_KEY",
        "SMTP_URL"
      ]) {
        delete env[name]
      }
      const child = spawn(process.execPath, ["--inspect=127.0.0.1:0", main], {
        env,
        stdio: ["ignore", "pipe", "pipe"],
        detached: true
      })
      let output = ""
      const timer = setTimeout(() => fail(new Error(`not serving in time:\n${output}`)), 120_000)
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        const base = /svc API at (http:\/\/\S+)/.exec(output)?.[1]
        const team = /Demo team: +(te-\S{12})/.exec(output)?.[1]
        const key = /Demo admin key: +(0x[0-9a-f]{64})/.exec(output)?.[1]
        const rpcUrl = /anvil at (http:\/\/\S+)/.exec(output)?.[1]
        const inspector = /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1]
        if (base && team && key && rpcUrl && inspector) {
          clearTimeout(timer)
          // The request log that follows is kept only when asked for (the streams keep flowing).
          child.stdout.off("data", onData)
          child.stderr.off("data", onData)
          const log = process.env.SOAK_SERVER_LOG
          if (log !== undefined) {
            child.stdout.on("data", (chunk: Buffer) => appendFileSync(log, chunk))
            child.stderr.on("data", (chunk: Buffer) => appendFileSync(log, chunk))
          }
          done({ child, base, team, key, rpcUrl, inspector })
        }
      }
      child.stdout.on("data", onData)
      child.stderr.on("data", onData)
    }
  )

/** A minimal Chrome DevTools Protocol client over the inspector's WebSocket. */
const inspect = async (url: string) => {
  const socket = new WebSocket(url)
  await new Promise((opened, failed) => {
    socket.addEventListener("open", opened, { once: true })
    socket.addEventListener("error", failed, { once: true })
  })
  let id = 0
  const pending = new Map<number, (result: Json) => void>()
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Json }
    if (message.id !== undefined) pending.get(message.id)?.(message.result)
    pending.delete(message.id ?? -1)
  })
  const send = (method: string, params: object = {}) =>
    new Promise<Json>((answered) => {
      pending.set(++id, answered)
      socket.send(JSON.stringify({ id, method, params }))
    })
  return { send, close: () => socket.close() }
}

/** Resident set size of a process, in bytes, from `/proc`. */
const rssOf = (pid: number) => {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
  return Number(line?.[1] ?? 0) * 1024
}

/** The first descendant of `pid` whose command is `name` (anvil runs under a small shell guard). */
const descendant = (pid: number, name: string): number | undefined => {
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    const file = `/proc/${pid}/task/${task}/children`
    if (!existsSync(file)) continue
    for (const child of readFileSync(file, "utf8").trim().split(/\s+/).filter(Boolean).map(Number)) {
      if (readFileSync(`/proc/${child}/comm`, "utf8").trim() === name) return child
      const deeper = descendant(child, name)
      if (deeper !== undefined) return deeper
    }
  }
  return undefined
}

/** The chain's latest block number (one block per transaction: anvil mines each as it arrives). */
const blockOf = async (rpcUrl: string) => {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_blockNumber", params: [] })
  })
  return Number(((await response.json()) as { result: string }).result)
}

/** The tables retention prunes (their indexes with them). */
const pruned = new Set([
  "event_outbox",
  "webhook_deliveries",
  "webhook_attempts",
  "issued_requests",
  "mail_outbox",
  "chain_transactions"
])

/** The database file: its size, its WAL's, its free pages, and the bytes in pruned tables and in kept ones. */
const databaseOf = (dataDir: string) => {
  const file = join(dataDir, "svc.db")
  const size = (path: string) => (existsSync(path) ? statSync(path).size : 0)
  const db = new DatabaseSync(file, { readOnly: true })
  try {
    const tableOf = new Map(
      db
        .prepare("SELECT name, tbl_name FROM sqlite_schema")
        .all()
        .map((row) => [String(row.name), String(row.tbl_name)])
    )
    let prunedBytes = 0
    let keptBytes = 0
    for (const row of db.prepare("SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name").all()) {
      const table = tableOf.get(String(row.name)) ?? String(row.name)
      if (pruned.has(table)) prunedBytes += Number(row.bytes)
      else keptBytes += Number(row.bytes)
    }
    const count = (table: string) => Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0)
    return {
      file: size(file),
      wal: size(`${file}-wal`),
      free: Number(db.prepare("PRAGMA freelist_count").get()?.freelist_count ?? 0) * 4096,
      prunedBytes,
      keptBytes,
      prunedRows: [...pruned].reduce((sum, table) => sum + count(table), 0),
      payments: count("payments")
    }
  } finally {
    db.close()
  }
}

interface Sample {
  readonly round: string
  readonly database: ReturnType<typeof databaseOf>
  readonly blocks: number
  readonly requests: string
  readonly statuses: string
  readonly rss: number
  readonly heapUsed: number
  readonly heapTotal: number
  readonly external: number
  readonly anvilRss: number
  readonly load: string
}

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)

if (process.argv[2] === "--load") {
  const [, , , base, team, key, duration, workers] = process.argv
  await load(base ?? "", team ?? "", key as `0x${string}`, Number(duration), Number(workers))
} else {
  const dataDir = mkdtempSync(join(tmpdir(), "svc-soak-"))
  const server = await startServer(dataDir)
  const pid = server.child.pid as number
  const anvil = descendant(pid, "anvil")
  const inspector = await inspect(server.inspector)
  const sample = async (round: string, result?: LoadResult): Promise<Sample> => {
    // Twice: the first collection can leave objects whose finalizers run before the second.
    await inspector.send("HeapProfiler.collectGarbage")
    await inspector.send("HeapProfiler.collectGarbage")
    const evaluated = await inspector.send("Runtime.evaluate", {
      expression: "JSON.stringify(process.memoryUsage())",
      returnByValue: true
    })
    const usage = JSON.parse(evaluated.result.value) as NodeJS.MemoryUsage
    const statuses =
      result === undefined
        ? ""
        : Object.entries(result.byStatus)
            .map(([status, count]) => `${status}: ${count}`)
            .join(", ")
    return {
      round,
      database: databaseOf(dataDir),
      blocks: await blockOf(server.rpcUrl),
      requests: result === undefined ? "" : String(result.requests),
      statuses,
      rss: rssOf(pid),
      heapUsed: usage.heapUsed,
      heapTotal: usage.heapTotal,
      external: usage.external,
      anvilRss: anvil === undefined ? 0 : rssOf(anvil),
      load: loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")
    }
  }
  const samples: Array<Sample> = [await sample("started")]
  console.error(JSON.stringify(samples[0]))
  for (let round = 1; round <= rounds; round++) {
    const result = await runLoad(server.base, server.team, server.key)
    samples.push(await sample(String(round), result))
    console.error(JSON.stringify(samples.at(-1)))
  }
  inspector.close()
  process.kill(-pid, "SIGTERM")
  await new Promise((exited) => server.child.once("exit", exited))
  rmSync(dataDir, { recursive: true, force: true })

  const table = [
    "",
    `## API: soak, ${rounds} ${seconds} s mixed loads (${new Date().toISOString().slice(0, 10)}, ${BenchRun.commit()})`,
    "",
    `Machine: ${BenchRun.machine()}. ${rounds} rounds of ${seconds} s, ${concurrency} clients; \`npm start\` on its defaults, but retention windows of ${retentionSeconds} s, pruned every 10 s.`,
    "",
    "| after round | requests | statuses | blocks | API RSS (MB) | API heap used after GC (MB) | heap total (MB) | external (MB) | anvil RSS (MB) | load avg (1/5/15 min) |",
    "| ----------: | -------: | -------- | -----: | -----------: | --------------------------: | --------------: | ------------: | -------------: | --------------------- |",
    ...samples.map(
      (s) =>
        `| ${s.round} | ${s.requests} | ${s.statuses} | ${s.blocks} | ${mb(s.rss)} | ${mb(s.heapUsed)} | ${mb(s.heapTotal)} | ${mb(s.external)} | ${mb(s.anvilRss)} | ${s.load} |`
    ),
    "",
    "The database (`svc.db`): the tables retention prunes (outbox events, webhook deliveries and attempts, signed requests, mails, relayer transactions, with their indexes) apart from the records it keeps (payments, invites, users, ...).",
    "",
    "| after round | file (MB) | WAL (MB) | free pages (MB) | pruned tables (MB) | their rows | kept records (MB) | payments |",
    "| ----------: | --------: | -------: | --------------: | -----------------: | ---------: | ----------------: | -------: |",
    ...samples.map(
      (s) =>
        `| ${s.round} | ${mb(s.database.file)} | ${mb(s.database.wal)} | ${mb(s.database.free)} | ${mb(s.database.prunedBytes)} | ${s.database.prunedRows} | ${mb(s.database.keptBytes)} | ${s.database.payments} |`
    ),
    "",
    "Command: `node apps/api/bench/soak.bench.ts`. Memory is the figure; the machine may be shared, so throughput varies.",
    ""
  ].join("\n")
  console.log(table)
  if (!smoke) appendFileSync(resolve(import.meta.dirname, "../../../bench/RESULTS.md"), table)
  process.exit(0)
}
