/**
 * Benchmark: settlement through a process fault (issue 36). Two API processes on one store (MongoDB on jongodb by
 * default; `BENCH_STORE=sqlite` for SQLite), anvil mining a block a second, two relayer keys; `BENCH_COUNT` PUTs
 * (default 200) sent at once, half to each process. A moment into the storm one process is stopped with `SIGSTOP`
 * for `BENCH_PAUSE_MS` (default 30 s) and continued; in a second run it is killed with `kill -9` instead. Then every
 * signed request is PUT again at the survivor until it answers 200.
 *
 * It holds, else the run fails: every request executed exactly once on chain (one `RequestExecuted` per salt), every
 * PUT finally answered 200 with that transaction, no answer 500 nor `ALREADY_EXECUTED`, each team's ledger (its
 * payments listed complete) equal to what left its account on chain to the cent, and every nonce of both keys one
 * call. It reports what the first answers were and how long until every PUT answered 200.
 *
 * Run: `node apps/api/bench/settlement-faults.bench.ts` (appends to bench/RESULTS.md). `BENCH_SMOKE=1` runs the
 * same on SQLite with a few PUTs, leases of 1.5 s and a 3-s pause, and writes nothing.
 */
import { appendFileSync } from "node:fs"
import { resolve } from "node:path"
import { keyOfAffinity } from "@svc/adapters/evm"
import { eventually } from "@svc/adapters/test/Eventually"
import { svcAccountForwarderAbi, testUsdcAbi } from "@svc/contracts"
import { TransactionJournal } from "@svc/domain/chain"
import { Context, Effect, Exit, Fiber, Layer } from "effect"
import type { Address } from "viem"
import * as Server from "../src/Server.ts"
import {
  type ApiProcess,
  type DeployedChain,
  deployedChain,
  employeesOf,
  fundedTeam,
  put,
  request,
  type Storage,
  sharedStore,
  signedPayment,
  signIn,
  startApi,
  untilPaid
} from "../test/SettlementKit.ts"
import * as BenchRun from "./BenchRun.ts"

const smoke = process.env.BENCH_SMOKE === "1"
const storage = (process.env.BENCH_STORE ?? (smoke ? "sqlite" : "mongo")) as Storage
const count = Number(process.env.BENCH_COUNT ?? (smoke ? 12 : 200))
const pauseMillis = Number(process.env.BENCH_PAUSE_MS ?? (smoke ? 3_000 : 30_000))
/** How far into the storm the fault comes. */
const faultAfterMillis = Number(process.env.BENCH_FAULT_AFTER_MS ?? (smoke ? 300 : 2_000))
/** Smoke: leases short enough that the survivor takes over within the pause. */
const leases: Record<string, string> = smoke
  ? { CLAIM_LEASE_MS: "1500", RELAYER_SEND_LEASE_MS: "1500", SETTLEMENT_WAIT_MS: "4000" }
  : {}

type Fault = "SIGSTOP" | "kill -9"

/** Sends `signal` to the process group of `api`. */
const signal = (api: ApiProcess, name: NodeJS.Signals) =>
  Effect.sync(() => {
    if (api.child.pid !== undefined) process.kill(-api.child.pid, name)
  })

/** The first answer to a PUT: its status and code, or `none` (the process died with it). */
const firstAnswer = (api: ApiProcess, token: string, body: unknown) =>
  Effect.map(Effect.exit(put(api.base, token, body)), (exit) =>
    Exit.isSuccess(exit)
      ? `${exit.value.status}${exit.value.status >= 400 ? ` ${exit.value.body.error_code}` : ""}`
      : "none"
  )

/** Teams until each relayer key carries at least two, funded; their payees. */
const teamsOnBothKeys = (
  chain: DeployedChain,
  store: Effect.Success<ReturnType<typeof sharedStore>>,
  apis: ReadonlyArray<ApiProcess>,
  token: string
) =>
  Effect.gen(function* () {
    const teams: Array<{ team: string; account: Address }> = []
    const perKey = new Map<string, number>()
    while (chain.relayers.some((relayer) => (perKey.get(relayer) ?? 0) < 2) && teams.length < 16) {
      const base = apis[teams.length % apis.length]?.base as string
      const team = yield* fundedTeam(chain, base, token, store.companyId, store.admin, `Team ${teams.length}`)
      const key = keyOfAffinity(team.account, chain.relayers)
      perKey.set(key, (perKey.get(key) ?? 0) + 1)
      teams.push(team)
    }
    const payees = yield* employeesOf(
      store,
      teams.map(({ team }) => team)
    )
    return { teams, payees }
  })

const balanceOf = (chain: DeployedChain, account: Address) =>
  Effect.promise(() =>
    chain.client.readContract({
      address: chain.env.TOKEN_ADDRESS as Address,
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [account]
    })
  )

/** Fails the run with `message` unless `holds`. */
const check = (holds: boolean, message: string) => (holds ? Effect.void : Effect.die(new Error(message)))

/** One run: the storm, the fault, every PUT again until 200, and the checks; answers its figures. */
const run = (chain: DeployedChain, fault: Fault) =>
  Effect.gen(function* () {
    const store = yield* sharedStore(storage)
    // The chain is shared by the runs: this run's nonces start where the last run's ended.
    const firstNonces = yield* Effect.forEach(chain.relayers, (relayer) =>
      Effect.promise(() => chain.client.getTransactionCount({ address: relayer }))
    )
    const env = { ...store.env, ...chain.env, ...leases }
    const [victim, survivor] = yield* Effect.all([startApi(env), startApi(env)], { concurrency: 2 })
    const apis = [victim, survivor] as const
    const token = yield* signIn(survivor.base, store.admin)
    const { teams, payees } = yield* teamsOnBothKeys(chain, store, apis, token)
    const before = yield* Effect.forEach(teams, ({ account }) => balanceOf(chain, account))
    const bodies = yield* Effect.forEach(
      Array.from({ length: count }, (_, i) => i),
      (i) =>
        signedPayment(
          apis[i % 2]?.base as string,
          token,
          store.admin,
          teams[i % teams.length]?.team as string,
          payees[i % teams.length] as string,
          100 + i
        ),
      { concurrency: 8 }
    )

    // All at once, half to each process; the fault a moment in.
    const storm = Date.now()
    const firsts = yield* Effect.forkChild(
      Effect.forEach(bodies, (body, i) => firstAnswer(apis[i % 2] as ApiProcess, token, body), {
        concurrency: "unbounded"
      })
    )
    yield* Effect.sleep(faultAfterMillis)
    if (fault === "SIGSTOP") {
      yield* signal(victim, "SIGSTOP")
      yield* Effect.sleep(pauseMillis)
      yield* signal(victim, "SIGCONT")
    } else {
      yield* signal(victim, "SIGKILL")
    }
    const answers = yield* Fiber.join(firsts)
    const tally = new Map<string, number>()
    for (const answer of answers) tally.set(answer, (tally.get(answer) ?? 0) + 1)
    console.error(`${fault}: first answers ${[...tally].map(([answer, n]) => `${n} x ${answer}`).join(", ")}`)
    const finals = yield* Effect.forEach(bodies, (body) => untilPaid(survivor.base, token, body), { concurrency: 16 })
    const allPaidMillis = Date.now() - storm
    console.error(`${fault}: every PUT 200 after ${allPaidMillis} ms`)

    // Executed once each, with the transaction the final PUT names.
    const executed = yield* Effect.promise(() =>
      chain.client.getContractEvents({
        address: chain.env.FORWARDER_ADDRESS as Address,
        abi: svcAccountForwarderAbi,
        eventName: "RequestExecuted",
        fromBlock: 0n,
        strict: true
      })
    )
    const salts = new Map(bodies.map((body, i) => [BigInt(body.typed_data.salt), i]))
    const ours = executed.filter((log) => salts.has(log.args.salt))
    yield* check(ours.length === count, `${ours.length} executions of ${count} requests`)
    yield* check(new Set(ours.map((log) => log.args.salt)).size === count, "a request executed twice")
    for (const log of ours) {
      const i = salts.get(log.args.salt) as number
      yield* check(
        finals[i]?.body.data.transaction === log.transactionHash,
        `request ${i}: the PUT names another transaction`
      )
    }
    yield* check(
      !answers.some((answer) => answer.startsWith("500") || answer.includes("ALREADY_EXECUTED")),
      `answers: ${answers.join(", ")}`
    )

    // The ledger equals the chain, to the cent, for each team.
    for (const [t, { team, account }] of teams.entries()) {
      const listed = yield* request(
        survivor.base,
        "GET",
        `/v2/payments?team_nanoid=${team}&state=complete&limit=1000`,
        token
      )
      const cents = (listed.data.items as Array<{ payment: { amount_cents: number } }>).reduce(
        (sum, item) => sum + item.payment.amount_cents,
        0
      )
      const left = (before[t] as bigint) - (yield* balanceOf(chain, account))
      yield* check(
        left === BigInt(cents) * 10n ** 4n,
        `team ${team}: ${left} units left its account, the ledger says ${cents} cents`
      )
    }
    const journal = Context.get(yield* Layer.build(Server.storage(store.options)), TransactionJournal)
    // Every transaction that executed a request is in this store's journal (none sent unjournaled).
    for (const log of ours) {
      const row = yield* journal.byHash(log.transactionHash)
      yield* check(row !== undefined, `transaction ${log.transactionHash} executed requests and is not journaled`)
    }
    // Every nonce of both keys holds one call: versions of one nonce are the same call (replacements), one confirmed.
    // Two calls or two confirmed versions fail at once; a mined nonce not yet confirmed (the survivor's monitor may
    // still be counting its depth on a loaded machine) is waited for.
    for (const [k, relayer] of chain.relayers.entries()) {
      const mined = yield* Effect.promise(() => chain.client.getTransactionCount({ address: relayer }))
      for (let nonce = firstNonces[k] ?? 0; nonce < mined; nonce++) {
        const oneCall = Effect.gen(function* () {
          const all = yield* journal.versions(Number(chain.env.CHAIN_ID), relayer, nonce)
          const versions = all.filter((v) => v.status !== "failed")
          const confirmed = versions.filter((v) => v.status === "confirmed").length
          yield* check(
            confirmed <= 1 && versions.every((v) => v.data === versions[0]?.data),
            `nonce ${nonce} of ${relayer}: ${all.map((v) => `${v.status} ${v.hash} ${v.data.slice(0, 10)}`).join("; ")}`
          )
          return confirmed === 1
        })
        yield* eventually(oneCall, { timeout: "60 seconds", what: `nonce ${nonce} of ${relayer} confirmed once` })
      }
    }
    return { fault, tally, allPaidMillis }
  }).pipe(Effect.scoped)

const main = Effect.gen(function* () {
  const chain = yield* deployedChain
  const rows = []
  for (const fault of ["SIGSTOP", "kill -9"] as const) rows.push(yield* run(chain, fault))
  const section = [
    "",
    `## Settlement through a process fault (${new Date().toISOString().slice(0, 10)}, ${BenchRun.commit()})`,
    "",
    `Machine: ${BenchRun.machine()}. Two API processes on ${storage === "mongo" ? "MongoDB (jongodb)" : "SQLite"}, anvil at`,
    `1-second blocks, two relayer keys; ${count} PUTs at once, half to each process; ${faultAfterMillis} ms in, one process`,
    `stopped (\`SIGSTOP\`, ${pauseMillis / 1000} s, then continued) or killed (\`kill -9\`); then every request PUT at the survivor`,
    `until 200. ${smoke ? "Smoke: leases of 1.5 s. " : "Default leases: claims 20 s, send 10 s. "}Each run: every request executed once, every PUT`,
    "finally 200 with that transaction, the ledger equal to the chain to the cent, one call per nonce.",
    "",
    "| fault | first answers | every PUT 200 after (s) |",
    "| ----- | ------------- | ----------------------: |",
    ...rows.map(
      (row) =>
        `| ${row.fault} | ${[...row.tally]
          .sort()
          .map(([answer, n]) => `${n} x ${answer}`)
          .join(", ")} | ${(row.allPaidMillis / 1000).toFixed(1)} |`
    ),
    "",
    "Command: `node apps/api/bench/settlement-faults.bench.ts`.",
    ""
  ].join("\n")
  console.log(section)
  if (!smoke) appendFileSync(resolve(import.meta.dirname, "../../../bench/RESULTS.md"), section)
}).pipe(Effect.scoped)

await Effect.runPromise(main)
process.exit(0)
