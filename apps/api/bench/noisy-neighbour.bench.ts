/**
 * A noisy neighbour (issue 18, item 4): the victim team's `PUT /v2/payments` median, quiet and then while another
 * team's user sends 1 MiB `POST /v2/payments` ten times a second, inside their request limit, with their team's budget
 * of issued requests already full. The goal: the victim's median within 2x of its quiet value.
 *
 * One server on SQLite and its own anvil; the production rate limits but for the per-address one (both clients share
 * 127.0.0.1 here). Run: `node apps/api/bench/noisy-neighbour.bench.ts` (appends to bench/RESULTS.md);
 * `BENCH_SMOKE=1` runs the same paths with a few requests and writes nothing.
 */
import { appendFileSync } from "node:fs"
import { startAnvil } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { defaultRateLimits } from "@svc/adapters/http/server"
import { ChainGateway } from "@svc/domain/chain"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { TeamRepository } from "@svc/domain/team"
import { Context, Duration, Effect, Fiber, Layer } from "effect"
import { keccak256, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { addMember, call, seedTeam, signIn, startTestServerWith, type TestServer } from "../test/TestServer.ts"
import * as BenchRun from "./BenchRun.ts"

const smoke = process.env.BENCH_SMOKE === "1"
const puts = smoke ? 3 : 40
const attackPerSecond = 10

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** A team whose admin owns its funded account, and a member to pay. */
const teamOn = (server: TestServer, chain: Context.Context<EmbeddedChain | ChainGateway>) =>
  Effect.gen(function* () {
    const seeded = yield* seedTeam(server, ["team_employee"])
    const admin = privateKeyToAccount(generatePrivateKey())
    yield* addMember(seeded.teamId, admin.address, "team_admin", `${admin.address}@t.example`).pipe(
      Effect.provide(server.context)
    )
    const { account } = yield* Context.get(chain, ChainGateway)
      .createAccount(admin.address, keccak256(toHex(seeded.teamId)))
      .pipe(Effect.orDie)
    yield* Context.get(chain, EmbeddedChain)
      .mint(account, 10n ** 12n)
      .pipe(Effect.orDie)
    yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
      Effect.provide(server.context)
    )
    return { team: seeded.teamId, admin, token: yield* signIn(server, admin), employee: seeded.members[0]!.user }
  })

const program = Effect.gen(function* () {
  const anvil = yield* startAnvil()
  const chain = yield* Layer.build(EmbeddedChain.layer({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId })).pipe(
    Effect.orDie
  )
  const server = yield* startTestServerWith({
    chain: Layer.succeedContext(chain),
    limits: { rateLimits: { ...defaultRateLimits, perIp: 0 } },
    issuedRequests: { maxCount: 3 }
  })
  const victim = yield* teamOn(server, chain)
  const attacker = yield* teamOn(server, chain)

  /** One victim payment: POST, sign, PUT; answers the PUT's milliseconds. */
  const victimPut = Effect.gen(function* () {
    const body = {
      from: victim.team,
      to: [{ to: victim.employee, amount_cents: 1, currency_symbol: "USD", invoice_description: "bench" }],
      pay_now: true
    }
    const issued = yield* call(server, "POST", "/v2/payments", { token: victim.token, body })
    if (issued.status !== 200) return yield* Effect.die(new Error(`POST ${issued.status}`))
    const bundle = issued.body.data as TypedDataBundle
    const signature = yield* Effect.promise(() => victim.admin.signTypedData(signableOf(bundle) as never))
    const started = performance.now()
    const put = yield* call(server, "PUT", "/v2/payments", {
      token: victim.token,
      body: { ...body, signer: victim.admin.address, typed_data: bundle.typed_data, signature }
    })
    if (put.status !== 200) return yield* Effect.die(new Error(`PUT ${put.status}`))
    return performance.now() - started
  })
  const measure = Effect.gen(function* () {
    const times: Array<number> = []
    for (let i = 0; i < puts; i++) times.push(yield* victimPut)
    return median(times)
  })

  yield* victimPut // warm-up
  const quiet = yield* measure

  // The attacker's budget is full (3 issued, never executed); each 1 MiB POST would build and store 950 entries.
  for (let i = 0; i < 3; i++) {
    yield* call(server, "POST", "/v2/payments", {
      token: attacker.token,
      body: {
        from: attacker.team,
        to: [{ to: attacker.employee, amount_cents: 1, currency_symbol: "USD", invoice_description: "fill" }],
        pay_now: true
      }
    })
  }
  const huge = {
    from: attacker.team,
    to: Array.from({ length: 950 }, (_, i) => ({
      to: attacker.employee,
      amount_cents: 1 + i,
      currency_symbol: "USD",
      invoice_description: "x".repeat(1_000)
    })),
    pay_now: true
  }
  const answers = new Map<number, number>()
  const flood = Effect.gen(function* () {
    while (true) {
      yield* Effect.forkChild(
        Effect.map(call(server, "POST", "/v2/payments", { token: attacker.token, body: huge }), (response) => {
          answers.set(response.status, (answers.get(response.status) ?? 0) + 1)
        })
      )
      yield* Effect.sleep(Duration.millis(1000 / attackPerSecond))
    }
  })
  const attack = yield* Effect.forkChild(flood)
  yield* Effect.sleep(Duration.millis(smoke ? 300 : 2_000))
  const loaded = yield* measure
  yield* Fiber.interrupt(attack)
  return { quiet, loaded, answers, bodyBytes: JSON.stringify(huge).length }
})

const { answers, bodyBytes, loaded, quiet } = await Effect.runPromise(Effect.scoped(program))
const ratio = loaded / quiet
const lines = [
  "",
  `## Noisy neighbour (apps/api/bench/noisy-neighbour.bench.ts), ${new Date().toISOString().slice(0, 10)}, ${BenchRun.commit()}`,
  "",
  `Machine: ${BenchRun.machine()}. SQLite, anvil (automine), one server; the attacker sends ${(bodyBytes / 2 ** 20).toFixed(2)} MiB`,
  `POST /v2/payments ${attackPerSecond} times a second with its team's budget full. Victim: ${puts} PUTs each side.`,
  "",
  "| victim PUT p50 quiet (ms) | with the attacker (ms) | ratio | attacker's answers |",
  "| ------------------------: | ---------------------: | ----: | ------------------ |",
  `| ${quiet.toFixed(1)} | ${loaded.toFixed(1)} | ${ratio.toFixed(2)} | ${[...answers].map(([status, n]) => `${n} x ${status}`).join(", ")} |`,
  ""
]
console.log(lines.join("\n"))
if (!smoke) appendFileSync(new URL("../../../bench/RESULTS.md", import.meta.url), lines.join("\n"))
process.exit(0)
