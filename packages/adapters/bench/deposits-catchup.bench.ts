/**
 * The deposit follower catching up (issue 25, decision 0064): anvil holding many blocks and a few USDC transfers into
 * a team's account, the follower on a SQLite store reading from block 0. Measures blocks read per second until it is
 * at the head, and checks it found every transfer once (goal: at least 10,000 blocks a second).
 *
 * Run: `node packages/adapters/bench/deposits-catchup.bench.ts` (starts its own anvil; about 8 minutes, nearly all of
 * them anvil mining the 50,000 blocks, at about 8 ms each on 2 cores; the catching up takes well under a second). Appends a
 * section to the repository's `bench/RESULTS.md`. `BENCH_SMOKE=1` runs the same code paths with tiny counts and writes
 * nothing.
 */
import { randomBytes } from "node:crypto"
import { appendFileSync } from "node:fs"
import { cpus, totalmem } from "node:os"
import { ChainGateway } from "@svc/domain/chain"
import { DepositFollower, DepositLedger } from "@svc/domain/deposit"
import type { TeamId } from "@svc/domain/Ids"
import { TeamRepository } from "@svc/domain/team"
import { Context, Effect, Layer } from "effect"
import { createTestClient, http, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { startAnvil } from "../src/embedded/index.ts"
import { EmbeddedChain } from "../src/evm/index.ts"
import * as SqliteStorage from "../src/sqlite/SqliteStorage.ts"

const smoke = process.env.BENCH_SMOKE === "1"
const blocks = smoke ? 500 : 50_000
const transfers = smoke ? 2 : 20
const chainId = 42161

const program = Effect.gen(function* () {
  const anvil = yield* startAnvil()
  const node = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) })
  const storage = yield* Layer.build(SqliteStorage.layer({ filename: ":memory:" }))
  const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl: anvil.rpcUrl, chainId })).pipe(
    Effect.provide(storage)
  )
  const gateway = Context.get(chainContext, ChainGateway)
  const embedded = Context.get(chainContext, EmbeddedChain)
  const team = "te-benchdeposit" as TeamId
  const owner = privateKeyToAccount(generatePrivateKey())
  const { account } = yield* gateway.createAccount(owner.address, toHex(randomBytes(32)))
  yield* TeamRepository.use((teams) =>
    teams.insert({
      nanoid: team,
      company_nanoid: "co-benchdeposit" as never,
      name: "Bench",
      description: "",
      avatar: "",
      svc_account: account,
      status: "active",
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString()
    } as never)
  ).pipe(Effect.provide(storage))
  // The transfers spread over the blocks: a mint, then a stretch of empty blocks.
  for (let i = 1; i <= transfers; i++) {
    yield* embedded.mint(account, BigInt(i) * 10_000n)
    // In stretches anvil mines well within a request's time.
    for (let left = Math.floor(blocks / transfers); left > 0; left -= 500) {
      yield* Effect.promise(() => node.mine({ blocks: Math.min(500, left) }))
    }
  }
  const head = Number(yield* gateway.blockNumber)

  const context = Context.merge(storage, chainContext)
  const started = performance.now()
  let cursor = -1
  let passes = 0
  let held: Effect.Success<ReturnType<typeof DepositFollower.followOnce>>["token"]
  while (cursor < head) {
    const pass = yield* DepositFollower.followOnce({ confirmations: 1, startBlock: 0, batchBlocks: 5_000 }, held).pipe(
      Effect.provide(context)
    )
    cursor = pass.cursor?.block ?? cursor
    held = pass.token
    passes++
  }
  const seconds = (performance.now() - started) / 1000
  const found = yield* DepositLedger.use((ledger) => ledger.list({ team, limit: 1_000 })).pipe(Effect.provide(storage))
  const amounts = found.map((deposit) => deposit.amount_cents).sort((a, b) => a - b)
  const expected = Array.from({ length: transfers }, (_, i) => i + 1)
  if (JSON.stringify(amounts) !== JSON.stringify(expected)) {
    return yield* Effect.die(new Error(`found ${JSON.stringify(amounts)}, expected ${JSON.stringify(expected)}`))
  }
  return { head, seconds, passes }
})

const { head, seconds, passes } = await Effect.runPromise(Effect.scoped(program))

const machine = `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} cores), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
const lines = [
  "",
  `## Deposit follower catching up (packages/adapters/bench/deposits-catchup.bench.ts), ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
  "",
  `Machine: ${machine}. Anvil, chain id ${chainId}; the follower on an in-memory SQLite store, reading 5,000 blocks a`,
  `call from block 0; ${transfers} USDC transfers into one team's account spread over the blocks, each found once.`,
  "",
  "| figure | value |",
  "| ------ | ----: |",
  `| blocks read | ${head + 1} |`,
  `| passes | ${passes} |`,
  `| seconds to the head | ${seconds.toFixed(2)} |`,
  `| blocks per second (goal: at least 10,000) | ${Math.round((head + 1) / seconds)} |`,
  ""
]
console.log(lines.join("\n"))
if (!smoke) appendFileSync(new URL("../../../bench/RESULTS.md", import.meta.url), lines.join("\n"))
