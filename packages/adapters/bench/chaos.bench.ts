/**
 * Settlement on a chain that misbehaves (issue 24, DESIGN §6): anvil mining a block a second, the relayer journaling
 * into a SQLite file. Measures settled payments per second (signed single-payment batches, 16 at a time), the time
 * from a dropped transaction's block production resuming to its payment on chain, and from a reorganisation that
 * took a payment away to the payment on chain again.
 *
 * Run: `node packages/adapters/bench/chaos.bench.ts` (starts its own anvil; about a minute). Appends a section to
 * the repository's `bench/RESULTS.md`. `BENCH_SMOKE=1` runs the same code paths with tiny counts and writes nothing.
 */
import { randomBytes } from "node:crypto"
import { appendFileSync, mkdtempSync, rmSync } from "node:fs"
import { cpus, tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { ChainGateway, paymentsRequestOf, TransactionJournal } from "@svc/domain/chain"
import { type PaymentEntry, paymentsTypedData, signableOf } from "@svc/domain/eip712"
import { Context, Duration, Effect, Fiber, Layer } from "effect"
import { createTestClient, type Hex, http, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { startAnvil } from "../src/embedded/index.ts"
import { EmbeddedChain } from "../src/evm/index.ts"
import { SqliteDatabase } from "../src/sqlite/SqliteDatabase.ts"
import * as SqliteTransactionJournal from "../src/sqlite/SqliteTransactionJournal.ts"

const smoke = process.env.BENCH_SMOKE === "1"
const payments = smoke ? 4 : 320
const concurrency = 64
const chainId = 42161

const bytes32 = (): Hex => toHex(randomBytes(32))

/** Anvil's own JSON-RPC methods (mining, mempool, snapshots, fees), through viem's test client. */
const rpc = (url: string, method: string, params: ReadonlyArray<unknown> = []) =>
  Effect.promise(() => createTestClient({ mode: "anvil", transport: http(url) }).request({ method, params } as never))

const seconds = (from: number) => (performance.now() - from) / 1000

const program = Effect.gen(function* () {
  const anvil = yield* startAnvil()
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-chaos-"))),
    (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
  )
  const journalContext = yield* Layer.build(
    SqliteTransactionJournal.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: join(dir, "svc.db") })))
  )
  const chainContext = yield* Layer.build(
    EmbeddedChain.layer({
      rpcUrl: anvil.rpcUrl,
      chainId,
      pollingInterval: 50,
      relayer: { monitorMillis: 250, replaceAfterMillis: 60_000 }
    })
  ).pipe(Effect.provide(journalContext))
  const gateway = Context.get(chainContext, ChainGateway)
  const embedded = Context.get(chainContext, EmbeddedChain)
  const location = { chainId, verifyingContract: embedded.suite.forwarder }
  const owner = privateKeyToAccount(generatePrivateKey())
  const { account: team } = yield* gateway.createAccount(owner.address, bytes32())
  yield* embedded.mint(team, 10n ** 12n)
  yield* rpc(anvil.rpcUrl, "evm_setAutomine", [false])
  yield* rpc(anvil.rpcUrl, "evm_setIntervalMining", [1])

  const signedPayment = Effect.gen(function* () {
    const entry: PaymentEntry = {
      id: bytes32(),
      groupID: bytes32(),
      payAtTime: "0",
      validMinutes: "0",
      payType: "1",
      token: embedded.suite.token,
      recipient: privateKeyToAccount(generatePrivateKey()).address,
      amount: "10000",
      data: "0x"
    }
    const bundle = paymentsTypedData(
      location,
      {
        from: owner.address,
        to: team,
        salt: BigInt(bytes32()).toString(10),
        expires: String(Math.floor(Date.now() / 1000) + 3600)
      },
      [entry]
    )
    const signature = yield* Effect.promise(() => owner.signTypedData(signableOf(bundle)))
    return { request: paymentsRequestOf(bundle.typed_data), signature }
  })

  // Throughput at 1-second blocks.
  const signed = yield* Effect.forEach(Array.from({ length: payments }), () => signedPayment)
  const started = performance.now()
  yield* Effect.forEach(signed, (request) => gateway.executePayments(request), { concurrency })
  const perSecond = payments / seconds(started)

  // A dropped transaction: mining paused, the payment sent, the mempool emptied, mining resumed.
  const journal = Context.get(journalContext, TransactionJournal)
  yield* rpc(anvil.rpcUrl, "evm_setIntervalMining", [0])
  const dropped = yield* Effect.forkChild(gateway.executePayments(yield* signedPayment))
  // Sent by whichever key holds the team's account (decision 0060).
  const sent = Effect.map(
    Effect.forEach(embedded.relayers, (relayer) => journal.unfinished(chainId, relayer)),
    (open) => open.flat().some((t) => t.status === "sent")
  )
  while (!(yield* sent)) yield* Effect.sleep(Duration.millis(10))
  yield* rpc(anvil.rpcUrl, "anvil_dropAllTransactions")
  const resumed = performance.now()
  yield* rpc(anvil.rpcUrl, "evm_setIntervalMining", [1])
  yield* Fiber.join(dropped)
  const dropRecovery = seconds(resumed)

  // A reorganisation: the block that held a payment is reverted away and the chain moves on without it.
  const snapshot = yield* rpc(anvil.rpcUrl, "evm_snapshot")
  const payment = yield* signedPayment
  yield* gateway.executePayments(payment)
  yield* rpc(anvil.rpcUrl, "evm_revert", [snapshot])
  yield* rpc(anvil.rpcUrl, "anvil_dropAllTransactions")
  const reverted = performance.now()
  while (!(yield* gateway.isSaltUsed(payment.request.salt))) yield* Effect.sleep(Duration.millis(20))
  const reorgRecovery = seconds(reverted)

  return { perSecond, dropRecovery, reorgRecovery }
})

const { dropRecovery, perSecond, reorgRecovery } = await Effect.runPromise(Effect.scoped(program))

const machine = `${cpus()[0]?.model ?? "unknown CPU"} (${cpus().length} cores), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
const lines = [
  "",
  `## Settlement on a misbehaving chain (packages/adapters/bench/chaos.bench.ts), ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`,
  "",
  `Machine: ${machine}. Anvil 1.7.1 mining a block a second, chain id 42161; the relayer journals into SQLite, its`,
  "monitor runs every 250 ms.",
  "",
  "| figure | value |",
  "| ------ | ----: |",
  `| settled payments per second (${payments} signed single payments, ${concurrency} at a time) | ${perSecond.toFixed(1)} |`,
  `| dropped transaction: mining resumed to the payment on chain (s) | ${dropRecovery.toFixed(2)} |`,
  `| reorganisation: block reverted away to the payment on chain again (s) | ${reorgRecovery.toFixed(2)} |`,
  ""
]
console.log(lines.join("\n"))
if (!smoke) appendFileSync(new URL("../../../bench/RESULTS.md", import.meta.url), lines.join("\n"))
