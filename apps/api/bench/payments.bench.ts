/**
 * Benchmark: `PUT /v2/payments` executions per second on anvil for batches of 1, 10 and 100 payments, and
 * `POST /v2/payments` server time for 1, 100 and 1000 entries (it must grow linearly with the entries).
 *
 * Run: `node apps/api/bench/payments.bench.ts` (starts its own jongodb and anvil; appends to bench/RESULTS.md).
 * PUTs are signed beforehand, then sent `BENCH_CONCURRENCY` at a time (default 8) to one API process; anvil mines
 * each transaction as it arrives.
 */

import { randomBytes } from "node:crypto"
import { appendFileSync } from "node:fs"
import { resolve } from "node:path"
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
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpServer } from "effect/http"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import * as Server from "../src/Server.ts"
import { addMember, call, seedTeam, signIn, type TestServer } from "../src/TestServer.ts"
import * as BenchRun from "./BenchRun.ts"

const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8)
const executions: ReadonlyArray<readonly [batch: number, count: number]> = [
  [1, 30],
  [10, 20],
  [100, 10]
]
const issueSizes = [1, 100, 1000] as const
const issueRounds = Number(process.env.BENCH_ROUNDS ?? 9)

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

const main = Effect.gen(function* () {
  const mongo = yield* startJongodb()
  const anvil = yield* startAnvil()
  const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl: anvil.rpcUrl, chainId: embeddedChainId }))
  const gateway = Context.get(chainContext, ChainGateway)
  const embedded = Context.get(chainContext, EmbeddedChain)
  const jwtSecret = randomBytes(32).toString("hex")

  /**
   * A server on a fresh database with a team of 10 payable members, whose account (owned by a finance admin whose
   * key we hold) is funded for the whole run. jongodb's transactions cost time in proportion to the database's size,
   * so each measurement starts on an empty database.
   */
  const setup = Effect.gen(function* () {
    const database = `bench_${randomBytes(6).toString("hex")}`
    const context = yield* Layer.build(
      Server.layer({
        port: 0,
        storage: { _tag: "mongo", uri: mongo.uri, database },
        jwtSecret: Redacted.make(jwtSecret),
        logRequests: false,
        chain: Layer.succeed(ChainGateway, gateway)
      })
    )
    const address = (yield* HttpServer.HttpServer.pipe(Effect.provide(context))).address
    const server: TestServer = {
      baseUrl: HttpServer.formatAddress(address),
      jwtSecret,
      storage: { _tag: "mongo", uri: mongo.uri, database },
      context
    }
    const seeded = yield* seedTeam(
      server,
      Array.from({ length: 10 }, () => "team_employee" as const)
    )
    yield* addMember(seeded.teamId, admin.address, "team_finance_admin", "bench-admin@bench.example").pipe(
      Effect.provide(context)
    )
    const { account } = yield* gateway.createAccount(admin.address, svcAccountSaltOf(seeded.teamId))
    yield* embedded.mint(account, 10n ** 15n)
    yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(Effect.provide(context))
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
  const adminKey = generatePrivateKey()
  const admin = privateKeyToAccount(adminKey)

  // PUT /v2/payments: pre-signed requests, `concurrency` in flight.
  const executing: Array<{
    n: number
    count: number
    perSecond: number
    directPerSecond: number
    paymentsPerSecond: number
    p50: number
  }> = []
  for (const [n, count] of executions) {
    const { server, token, issue, bodyOf } = yield* setup
    const body = bodyOf(n)
    const requests: Array<unknown> = []
    for (let i = 0; i < count; i++) {
      const { bundle } = yield* issue(body)
      const signature = yield* Effect.promise(() => admin.signTypedData(signableOf(bundle) as never))
      requests.push({ ...body, signer: admin.address, typed_data: bundle.typed_data, signature })
    }
    // Baseline: the same kind of signed batches sent straight to the gateway (chain and relayer only).
    const direct: Array<Signed<PaymentsForwardRequest>> = []
    for (let i = 0; i < count; i++) {
      const { bundle } = yield* issue(body)
      const signature = yield* Effect.promise(() => admin.signTypedData(signableOf(bundle) as never))
      direct.push({ request: paymentsRequestOf(bundle.typed_data as PaymentsTypedDataMessage), signature })
    }
    const directStarted = performance.now()
    yield* Effect.forEach(direct, (signed) => gateway.executePayments(signed), { concurrency })
    const directPerSecond = count / ((performance.now() - directStarted) / 1000)
    const latencies: Array<number> = []
    const started = performance.now()
    yield* Effect.forEach(
      requests,
      (request) =>
        Effect.gen(function* () {
          const t0 = performance.now()
          const response = yield* call(server, "PUT", "/v2/payments", { token, body: request })
          if (response.status !== 200) return yield* Effect.die(new Error(JSON.stringify(response.body)))
          latencies.push(performance.now() - t0)
        }),
      { concurrency }
    )
    const seconds = (performance.now() - started) / 1000
    console.error(`PUT ${n} x ${count}: ${seconds.toFixed(2)} s`)
    executing.push({
      n,
      count,
      perSecond: count / seconds,
      directPerSecond,
      paymentsPerSecond: (count * n) / seconds,
      p50: median(latencies)
    })
  }

  // POST /v2/payments: server time per batch size (median of rounds, after one warm-up each).
  const issuing: Array<{ n: number; ms: number }> = []
  const { issue, bodyOf } = yield* setup
  for (const n of issueSizes) {
    const body = bodyOf(n)
    yield* issue(body)
    const times: Array<number> = []
    for (let round = 0; round < issueRounds; round++) times.push((yield* issue(body)).elapsed)
    issuing.push({ n, ms: median(times) })
    console.error(`POST ${n}: ${median(times).toFixed(1)} ms`)
  }

  const machine = BenchRun.machine()
  const commit = BenchRun.commit()
  const perEntry = issuing.map((r) => r.ms / r.n)
  const section = [
    "",
    `## API: payments on anvil (${new Date().toISOString().slice(0, 10)}, ${commit})`,
    "",
    `Machine: ${machine}. Embedded jongodb and anvil (automine), one API process, its own relayer.`,
    "",
    `PUT /v2/payments, pre-signed batches, ${concurrency} in flight (each answer waits for the mined receipt):`,
    "",
    "| batch | requests | executions/s | payments/s | p50 latency (ms) | gateway alone, executions/s |",
    "| ----: | -------: | -----------: | ---------: | ---------------: | --------------------------: |",
    ...executing.map(
      (r) =>
        `| ${r.n} | ${r.count} | ${r.perSecond.toFixed(1)} | ${r.paymentsPerSecond.toFixed(0)} | ${r.p50.toFixed(0)} | ${r.directPerSecond.toFixed(1)} |`
    ),
    "",
    `POST /v2/payments, time to answer over local HTTP, median of ${issueRounds}:`,
    "",
    "| entries | ms | ms per entry |",
    "| ------: | -: | -----------: |",
    ...issuing.map((r, i) => `| ${r.n} | ${r.ms.toFixed(1)} | ${(perEntry[i] ?? 0).toFixed(3)} |`),
    "",
    '"Gateway alone" sends the same kind of signed batches straight to the ChainGateway: the difference is the API\'s',
    "work, dominated on jongodb by the transaction that records payments and events (jongodb's transactions cost time",
    "in proportion to the data held, and run one at a time; on MongoDB they take milliseconds).",
    "",
    "Issuing grows linearly: past the fixed cost of one request, each entry adds a constant (ids, one entry, its",
    "share of the digest and of the stored record). Command: `node apps/api/bench/payments.bench.ts`.",
    ""
  ].join("\n")
  console.log(section)
  appendFileSync(resolve(import.meta.dirname, "../../../bench/RESULTS.md"), section)
}).pipe(Effect.scoped)

await Effect.runPromise(main)
process.exit(0)
