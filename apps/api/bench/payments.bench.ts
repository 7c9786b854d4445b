/**
 * Benchmark: `PUT /v2/payments` executions per second on anvil for batches of 1 and 10 payments, beside the chain
 * gateway alone sending the same kind of signed batches in the same run; and `POST /v2/payments` server time for 1,
 * 100 and 1000 entries (it must grow linearly with the entries).
 *
 * Three storages: the embedded default (a SQLite file) empty, the same with 10,000 users and 100,000 payments already
 * stored, and MongoDB on jongodb (empty; for the record).
 *
 * Run: `node apps/api/bench/payments.bench.ts` (starts its own jongodb and anvil; appends to bench/RESULTS.md).
 * `BENCH_SMOKE=1` runs the same paths with a few requests and a small load, and writes nothing.
 * PUTs are signed beforehand, then sent `BENCH_CONCURRENCY` at a time (default 8) to one API process by a load
 * generator in a child process (so the client does not share the server's event loop); anvil mines each transaction
 * as it arrives.
 */

import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { embeddedChainId, startAnvil, startJongodb } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import {
  ChainGateway,
  type PaymentsForwardRequest,
  paymentsRequestOf,
  type Signed,
  svcAccountSaltOf
} from "@svc/domain/chain"
import { type PaymentsTypedDataMessage, signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { TeamRepository } from "@svc/domain/team"
import { Context, Effect, Layer } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import type * as Server from "../src/Server.ts"
import { addMember, call, seedTeam, signIn, startTestServerWith } from "../test/TestServer.ts"
import { storeBulk } from "./BenchData.ts"
import * as BenchRun from "./BenchRun.ts"

/** `BENCH_SMOKE=1`: the same paths with a few requests and a small load; writes nothing. */
const smoke = process.env.BENCH_SMOKE === "1"
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? (smoke ? 2 : 8))
const executions: ReadonlyArray<readonly [batch: number, count: number]> = [
  [1, Number(process.env.BENCH_COUNT_1 ?? (smoke ? 4 : 240))],
  [10, Number(process.env.BENCH_COUNT_10 ?? (smoke ? 2 : 80))]
]
/**
 * Requests sent through each path, uncounted, before it is timed: a fresh server's first requests compile its code
 * paths (decoders, statements, the relayer's), which a run of a second or less would otherwise mostly measure.
 */
const warmup = Number(process.env.BENCH_WARMUP ?? (smoke ? 1 : 20))
const issueSizes = [1, 100, 1000] as const
const issueRounds = Number(process.env.BENCH_ROUNDS ?? (smoke ? 1 : 9))
/** What the loaded runs store besides the team. */
const bulk = smoke ? { users: 500, payments: 2_000 } : { users: 10_000, payments: 100_000 }

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

/** The load generator (child process): `--put <url> <token> <file> <concurrency>` PUTs each body of the file. */
const put = async (url: string, token: string, file: string, workers: number) => {
  const bodies = JSON.parse(readFileSync(file, "utf8")) as Array<unknown>
  const latencies: Array<number> = []
  let next = 0
  let inFlight = 0
  const started = performance.now()
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]
      const t0 = performance.now()
      const response = await fetch(url, {
        method: "PUT",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body)
      })
      let status = response.status
      let text = await response.text()
      // In flight (202), or another holder's still (409 EXECUTION_IN_PROGRESS): the same PUT again until it answers
      // 200, as a client does; its latency is until then.
      while (status === 202 || (status === 409 && text.includes("EXECUTION_IN_PROGRESS"))) {
        inFlight++
        await new Promise((again) => setTimeout(again, 100))
        const retried = await fetch(url, {
          method: "PUT",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body)
        })
        status = retried.status
        text = await retried.text()
      }
      if (status !== 200) throw new Error(`PUT answered ${status}: ${text}`)
      latencies.push(performance.now() - t0)
    }
  }
  await Promise.all(Array.from({ length: workers }, worker))
  const seconds = (performance.now() - started) / 1000
  process.stdout.write(JSON.stringify({ seconds, p50: median(latencies), inFlight }))
}

const runPuts = (url: string, token: string, bodies: ReadonlyArray<unknown>, directory: string) =>
  new Promise<{ seconds: number; p50: number; inFlight: number }>((done, fail) => {
    const file = join(directory, `puts-${randomBytes(4).toString("hex")}.json`)
    writeFileSync(file, JSON.stringify(bodies))
    const child = spawn(process.execPath, [import.meta.filename, "--put", url, token, file, String(concurrency)], {
      stdio: ["ignore", "pipe", "inherit"]
    })
    let out = ""
    child.stdout.on("data", (chunk) => {
      out += chunk
    })
    child.on("exit", (code) => (code === 0 ? done(JSON.parse(out)) : fail(new Error(`load exited ${code}`))))
  })

interface Execution {
  readonly n: number
  readonly count: number
  readonly perSecond: number
  readonly directPerSecond: number
  readonly p50: number
  /** Answers 202 (in flight) or 409 `EXECUTION_IN_PROGRESS` before the 200. */
  readonly inFlight: number
}

const main = Effect.gen(function* () {
  const anvil = yield* startAnvil()
  const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl: anvil.rpcUrl, chainId: embeddedChainId }))
  const gateway = Context.get(chainContext, ChainGateway)
  const embedded = Context.get(chainContext, EmbeddedChain)
  const jwtSecret = randomBytes(32).toString("hex")
  const admin = privateKeyToAccount(generatePrivateKey())

  /**
   * A server on `storage` with a team of 10 payable members, whose account (owned by a finance admin whose key we
   * hold) is funded for the whole run; with `loaded`, the bulk data is stored first.
   */
  const setup = (storage: Server.StorageOptions, loaded: boolean) =>
    Effect.gen(function* () {
      const server = yield* startTestServerWith({ storage, jwtSecret, chain: Layer.succeed(ChainGateway, gateway) })
      if (loaded) yield* storeBulk(bulk).pipe(Effect.provide(server.context))
      const seeded = yield* seedTeam(
        server,
        Array.from({ length: 10 }, () => "team_employee" as const)
      )
      yield* addMember(seeded.teamId, admin.address, "team_finance_admin", "bench-admin@bench.example").pipe(
        Effect.provide(server.context)
      )
      const { account } = yield* gateway.createAccount(admin.address, svcAccountSaltOf(seeded.teamId))
      yield* embedded.mint(account, 10n ** 15n)
      yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
        Effect.provide(server.context)
      )
      const token = yield* signIn(server, admin)
      const bodyOf = (n: number) => ({
        from: seeded.teamId,
        to: Array.from({ length: n }, (_, i) => ({
          to: seeded.members[i % seeded.members.length]?.user,
          amount_cents: 100 + i,
          currency_symbol: "USD",
          invoice_description: `bench ${i}`
        })),
        pay_now: true
      })
      const issue = (body: unknown) =>
        Effect.gen(function* () {
          const started = performance.now()
          const response = yield* call(server, "POST", "/v2/payments", { token, body })
          const elapsed = performance.now() - started
          if (response.status !== 200) return yield* Effect.die(new Error(JSON.stringify(response.body)))
          return { bundle: response.body.data as TypedDataBundle, elapsed }
        })
      return { server, token, bodyOf, issue }
    })

  /** PUT /v2/payments on `storage`: pre-signed requests, `concurrency` in flight, beside the gateway alone. */
  const measure = (
    storage: () => Server.StorageOptions,
    loaded: boolean,
    runs: ReadonlyArray<readonly [batch: number, count: number]> = executions
  ) =>
    Effect.gen(function* () {
      const rows: Array<Execution> = []
      for (const [n, count] of runs) {
        const result = yield* Effect.scoped(
          Effect.gen(function* () {
            const { server, token, issue, bodyOf } = yield* setup(storage(), loaded)
            const body = bodyOf(n)
            const requests: Array<unknown> = []
            const direct: Array<Signed<PaymentsForwardRequest>> = []
            for (let i = 0; i < count + warmup; i++) {
              const { bundle } = yield* issue(body)
              const signature = yield* Effect.promise(() => admin.signTypedData(signableOf(bundle) as never))
              requests.push({ ...body, signer: admin.address, typed_data: bundle.typed_data, signature })
              // The baseline: the same kind of signed batch, sent straight to the gateway (chain and relayer only).
              const other = (yield* issue(body)).bundle
              const otherSignature = yield* Effect.promise(() => admin.signTypedData(signableOf(other) as never))
              direct.push({
                request: paymentsRequestOf(other.typed_data as PaymentsTypedDataMessage),
                signature: otherSignature
              })
            }
            yield* Effect.forEach(direct.slice(0, warmup), (signed) => gateway.executePayments(signed), { concurrency })
            const directStarted = performance.now()
            yield* Effect.forEach(direct.slice(warmup), (signed) => gateway.executePayments(signed), { concurrency })
            const directPerSecond = count / ((performance.now() - directStarted) / 1000)
            yield* Effect.promise(() =>
              runPuts(`${server.baseUrl}/v2/payments`, token, requests.slice(0, warmup), directory)
            )
            const { seconds, p50, inFlight } = yield* Effect.promise(() =>
              runPuts(`${server.baseUrl}/v2/payments`, token, requests.slice(warmup), directory)
            )
            console.error(`${storage()._tag}${loaded ? " loaded" : ""}: PUT ${n} x ${count}: ${seconds.toFixed(2)} s`)
            return { n, count, perSecond: count / seconds, directPerSecond, p50, inFlight }
          })
        )
        rows.push(result)
      }
      return rows
    })

  const directory = mkdtempSync(join(tmpdir(), "bench-payments-"))
  const sqliteFile = (): Server.StorageOptions => ({
    _tag: "sqlite",
    filename: join(directory, `${randomBytes(6).toString("hex")}.db`)
  })
  const sqliteEmpty = yield* measure(sqliteFile, false)
  const sqliteLoaded = yield* measure(sqliteFile, true)
  const mongo = yield* startJongodb()
  // jongodb's transactions cost time in proportion to the data it holds: each measurement starts on an empty database.
  // jongodb answers a few PUTs a second: fewer of them, for the record.
  const mongoEmpty = yield* measure(
    () => ({ _tag: "mongo", uri: mongo.uri, database: `bench_${randomBytes(6).toString("hex")}` }),
    false,
    executions.map(([n, count]) => [n, Math.min(count, smoke ? count : n === 1 ? 60 : 40)] as const)
  )

  // POST /v2/payments: server time per batch size on the embedded default (median of rounds, after a warm-up each).
  const issuing = yield* Effect.scoped(
    Effect.gen(function* () {
      const { issue, bodyOf } = yield* setup(sqliteFile(), false)
      const rows: Array<{ n: number; ms: number }> = []
      for (const n of issueSizes) {
        const body = bodyOf(n)
        yield* issue(body)
        const times: Array<number> = []
        for (let round = 0; round < issueRounds; round++) times.push((yield* issue(body)).elapsed)
        rows.push({ n, ms: median(times) })
      }
      return rows
    })
  )
  rmSync(directory, { recursive: true, force: true })

  const executionRows = (name: string, rows: ReadonlyArray<Execution>) =>
    rows.map(
      (r) =>
        `| ${name} | ${r.n} | ${r.count} | ${r.perSecond.toFixed(1)} | ${r.directPerSecond.toFixed(1)} | ${((r.perSecond / r.directPerSecond) * 100).toFixed(0)}% | ${r.p50.toFixed(0)} |`
    )
  const loadedVsEmpty = sqliteLoaded.map((r, i) => (r.perSecond / (sqliteEmpty[i]?.perSecond ?? 1)).toFixed(2))
  const section = [
    "",
    `## API: payments on anvil (${new Date().toISOString().slice(0, 10)}, ${BenchRun.commit()})`,
    "",
    `Machine: ${BenchRun.machine()}. Embedded anvil (automine), one API process, its own relayer.`,
    "",
    `PUT /v2/payments, pre-signed batches, ${concurrency} in flight (each answer waits for the mined receipt), beside the`,
    `chain gateway alone sending the same kind of signed batches, in the same run; each path first sends ${warmup}`,
    "requests that are not counted:",
    "",
    "| storage | batch | requests | API executions/s | gateway alone, executions/s | API / gateway | API p50 (ms) |",
    "| --- | ----: | -------: | ---------------: | --------------------------: | ------------: | -----------: |",
    ...executionRows("SQLite (embedded default), empty", sqliteEmpty),
    ...executionRows(
      `SQLite, ${bulk.users.toLocaleString("en")} users and ${bulk.payments.toLocaleString("en")} payments stored`,
      sqliteLoaded
    ),
    ...executionRows("MongoDB on jongodb, empty (for the record)", mongoEmpty),
    "",
    `SQLite loaded / empty, API executions/s: ${loadedVsEmpty.join(" (batch of 1), ")} (batch of 10).`,
    `PUTs answered 202 (in flight) or 409 EXECUTION_IN_PROGRESS first, then 200 when PUT again (the p50 counts until the`,
    `200): ${[...sqliteEmpty, ...sqliteLoaded, ...mongoEmpty].map((r) => r.inFlight).join(", ")}, in the table's order.`,
    "",
    `POST /v2/payments on SQLite, time to answer over local HTTP, median of ${issueRounds}:`,
    "",
    "| entries | ms | ms per entry |",
    "| ------: | -: | -----------: |",
    ...issuing.map((r) => `| ${r.n} | ${r.ms.toFixed(1)} | ${(r.ms / r.n).toFixed(3)} |`),
    "",
    "Command: `node apps/api/bench/payments.bench.ts`. The machine is shared with other work, so absolute numbers move",
    "between runs; the ratios within a run are the figures to compare.",
    ""
  ].join("\n")
  console.log(section)
  if (!smoke) appendFileSync(resolve(import.meta.dirname, "../../../bench/RESULTS.md"), section)
}).pipe(Effect.scoped)

if (process.argv[2] === "--put") {
  const [, , , url, token, file, workers] = process.argv
  await put(url ?? "", token ?? "", file ?? "", Number(workers))
} else {
  await Effect.runPromise(main)
  process.exit(0)
}
