/**
 * The relayer against a chain that misbehaves (DESIGN §6, issue 24), each test on an anvil of its own that mines a
 * block a second, with the journal in a real SQLite file: a transaction the node drops is sent again and the next one
 * still goes through; one priced out by a base-fee spike is replaced with raised fees, and the replacement is the
 * execution.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ChainGateway, TransactionJournal } from "@svc/domain/chain"
import { Context, Duration, Effect, Fiber, Layer } from "effect"
import { type Address, createTestClient, type Hex, http, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { eventually } from "../../test/Eventually.ts"
import { startAnvil } from "../embedded/Anvil.ts"
import { SqliteDatabase } from "../sqlite/SqliteDatabase.ts"
import * as SqliteTransactionJournal from "../sqlite/SqliteTransactionJournal.ts"
import { makeChainClient } from "./ChainClient.ts"
import { EmbeddedChain } from "./EmbeddedChain.ts"
import { bumped, makeRelayer } from "./Relayer.ts"

const chainId = 42161

/** Anvil's own JSON-RPC methods (mining, mempool, snapshots, fees), through viem's test client. */
const rpc = (url: string, method: string, params: ReadonlyArray<unknown> = []) =>
  Effect.promise(() => createTestClient({ mode: "anvil", transport: http(url) }).request({ method, params } as never))

/** A fresh anvil mining a block a second, a journal in a new SQLite file, and the embedded chain on both. */
const misbehavingChain = chainWith({})

function chainWith(relayerOptions: { readonly confirmations?: number }) {
  return Effect.gen(function* () {
    const anvil = yield* startAnvil()
    // Blocks a second from the start: with more than one confirmation, the suite's deployment needs blocks after it.
    yield* rpc(anvil.rpcUrl, "evm_setAutomine", [false])
    yield* rpc(anvil.rpcUrl, "evm_setIntervalMining", [1])
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-relayer-"))),
      (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
    )
    const journalContext = yield* Layer.build(
      SqliteTransactionJournal.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: join(dir, "svc.db") })))
    ).pipe(Effect.orDie)
    const chainContext = yield* Layer.build(
      EmbeddedChain.layer({
        rpcUrl: anvil.rpcUrl,
        chainId,
        pollingInterval: 50,
        relayer: { monitorMillis: 200, replaceAfterMillis: 60_000, ...relayerOptions }
      })
    ).pipe(Effect.provide(journalContext), Effect.orDie)
    return {
      rpcUrl: anvil.rpcUrl,
      journal: Context.get(journalContext, TransactionJournal),
      gateway: Context.get(chainContext, ChainGateway),
      relayers: Context.get(chainContext, EmbeddedChain).relayers
    }
  })
}

const bytes32 = (): Hex => toHex(randomBytes(32))
const newOwner = (): Address => privateKeyToAccount(generatePrivateKey()).address

/** Waits until one of the relayer's keys has a transaction out that no block holds yet; answers it. */
const inFlight = (journal: TransactionJournal["Service"], relayers: ReadonlyArray<Address>) =>
  eventually(
    Effect.map(
      Effect.forEach(relayers, (relayer) => journal.unfinished(chainId, relayer)),
      (open) => open.flat().find((transaction) => transaction.status === "sent")
    ),
    { what: "a transaction sent and not mined" }
  )

describe("Relayer on a chain that misbehaves", () => {
  it.live(
    "a transaction the node dropped is sent again, and the next one is answered within a few blocks",
    () =>
      Effect.gen(function* () {
        const { rpcUrl, journal, gateway, relayers } = yield* misbehavingChain
        // Interval mining: a payment-like transaction goes through in about a block.
        const first = newOwner()
        assert.strictEqual((yield* gateway.createAccount(first, bytes32())).owner, first)

        // Mining paused, a transaction sent, the node's mempool emptied, mining resumed.
        yield* rpc(rpcUrl, "evm_setIntervalMining", [0])
        const owner = newOwner()
        const creation = yield* Effect.forkChild(gateway.createAccount(owner, bytes32()))
        const dropped = yield* inFlight(journal, relayers)
        yield* rpc(rpcUrl, "anvil_dropAllTransactions")
        assert.isNull(yield* rpc(rpcUrl, "eth_getTransactionByHash", [dropped.hash]))
        yield* rpc(rpcUrl, "evm_setIntervalMining", [1])

        const created = yield* Fiber.join(creation)
        assert.strictEqual(created.transactionHash, dropped.hash)
        assert.strictEqual(yield* gateway.ownerOf(created.account), owner)
        // The nonce after it was not stuck behind it.
        const next = newOwner()
        assert.strictEqual(yield* gateway.ownerOf((yield* gateway.createAccount(next, bytes32())).account), next)
        const versions = yield* journal.versions(chainId, dropped.relayer, dropped.nonce)
        assert.deepStrictEqual(
          versions.map((version) => [version.hash, version.status]),
          [[dropped.hash, "confirmed"]]
        )
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a transaction priced out by a base-fee spike is replaced with raised fees, and the replacement executes",
    () =>
      Effect.gen(function* () {
        const { rpcUrl, journal, gateway, relayers } = yield* misbehavingChain
        yield* rpc(rpcUrl, "evm_setIntervalMining", [0])
        const owner = newOwner()
        const creation = yield* Effect.forkChild(gateway.createAccount(owner, bytes32()))
        const stuck = yield* inFlight(journal, relayers)
        // The next block's base fee far above what the transaction offers (it then falls 12.5 % a block).
        const spike = stuck.maxFeePerGas * 100n
        yield* rpc(rpcUrl, "anvil_setNextBlockBaseFeePerGas", [toHex(spike)])
        yield* rpc(rpcUrl, "evm_setIntervalMining", [1])

        const created = yield* Fiber.join(creation)
        assert.strictEqual(yield* gateway.ownerOf(created.account), owner)
        const versions = yield* journal.versions(chainId, stuck.relayer, stuck.nonce)
        assert.isAtLeast(versions.length, 2)
        const [original, ...replacements] = versions
        assert.deepStrictEqual([original?.hash, original?.status], [stuck.hash, "replaced"])
        const executed = replacements.find((version) => version.status === "confirmed")
        assert.isDefined(executed)
        assert.strictEqual(created.transactionHash, executed?.hash)
        // Same nonce and calldata; both fees raised by at least 12.5 %, and past the spike.
        assert.strictEqual(executed?.data, stuck.data)
        assert.isAtLeast(Number(executed?.maxPriorityFeePerGas), Number(bumped(stuck.maxPriorityFeePerGas)))
        assert.isAbove(Number(executed?.maxFeePerGas), Number((spike * 7n) / 8n))
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "a transaction a reorganisation took away is sent again, and the chain holds it once more",
    () =>
      Effect.gen(function* () {
        const { rpcUrl, journal, gateway } = yield* misbehavingChain
        const snapshot = yield* rpc(rpcUrl, "evm_snapshot")
        const owner = newOwner()
        const created = yield* gateway.createAccount(owner, bytes32())
        const mined = yield* journal.byHash(created.transactionHash as Hex)
        assert.strictEqual(mined?.status, "confirmed")
        // The monitor's passes (every 200 ms) move its block cursor past the block that holds it (a cursor before it
        // finds the reorganisation too, by another path).
        // not a wait: the monitor's own passes, which nothing outside it shows, run before the reorganisation
        yield* Effect.sleep(Duration.millis(1_000))
        // The block that held it is reorganised away, and the chain moves on without it.
        yield* rpc(rpcUrl, "evm_revert", [snapshot])
        yield* rpc(rpcUrl, "anvil_dropAllTransactions")
        assert.isUndefined(yield* gateway.ownerOf(created.account))
        // The fork grows past the height the monitor last saw: its block cursor, not the head, tells the reorg.
        yield* rpc(rpcUrl, "anvil_mine", [toHex(8)])

        // Back on chain, and the journal follows it there.
        yield* eventually(
          Effect.map(gateway.ownerOf(created.account), (owner) => owner !== undefined),
          {
            what: "the account on chain again"
          }
        )
        yield* eventually(
          Effect.map(journal.byHash(created.transactionHash as Hex), (row) => row?.status === "confirmed"),
          { what: "the journal's version confirmed again" }
        )
        const again = yield* journal.byHash(created.transactionHash as Hex)
        assert.notStrictEqual(again?.blockHash, mined?.blockHash)
        // The next transaction is not held up behind it.
        const next = newOwner()
        assert.strictEqual(yield* gateway.ownerOf((yield* gateway.createAccount(next, bytes32())).account), next)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "with CHAIN_CONFIRMATIONS 3 a transaction is answered once its block is three deep, and is in flight until then",
    () =>
      Effect.gen(function* () {
        const { rpcUrl, journal, gateway, relayers } = yield* chainWith({ confirmations: 3 })
        const owner = newOwner()
        const creation = yield* Effect.forkChild(gateway.createAccount(owner, bytes32()))
        const sent = yield* inFlight(journal, relayers)
        // Mined, not yet deep enough: included, and not answered.
        yield* eventually(
          Effect.map(journal.byHash(sent.hash), (row) => row?.status === "included"),
          {
            what: "the version included"
          }
        )
        const included = yield* journal.byHash(sent.hash)
        const created = yield* Fiber.join(creation)
        const head = BigInt(String(yield* rpc(rpcUrl, "eth_blockNumber")))
        assert.isAtLeast(Number(head - (included?.blockNumber ?? head) + 1n), 3)
        assert.strictEqual(created.transactionHash, sent.hash)
        assert.strictEqual((yield* journal.byHash(sent.hash))?.status, "confirmed")
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "two senders with the same key and journal, as two processes have, never sign the same nonce",
    () =>
      Effect.gen(function* () {
        const anvil = yield* startAnvil()
        const client = makeChainClient({ rpcUrl: anvil.rpcUrl, chainId, pollingInterval: 20 })
        const key = privateKeyToAccount(generatePrivateKey())
        yield* rpc(anvil.rpcUrl, "anvil_setBalance", [key.address, toHex(10n ** 21n)])
        yield* rpc(anvil.rpcUrl, "evm_setAutomine", [false])
        yield* rpc(anvil.rpcUrl, "evm_setIntervalMining", [1])
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-relayer-"))),
          (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
        )
        // Each its own connection to one database file, as separate processes would open it.
        const journalOf = Effect.map(
          Layer.build(
            SqliteTransactionJournal.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: join(dir, "svc.db") })))
          ).pipe(Effect.orDie),
          (context) => Context.get(context, TransactionJournal)
        )
        const journal = yield* journalOf
        const sender = Effect.flatMap(journalOf, (own) =>
          makeRelayer(client, key, { journal: own, monitorMillis: 200 })
        )
        const [a, b] = [yield* sender, yield* sender]
        const transfer = { to: newOwner(), data: "0x" as Hex, gas: 21_000n }
        const hashes = yield* Effect.forEach(
          Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b)),
          (relayer) => relayer.send(transfer),
          { concurrency: "unbounded" }
        )
        const receipts = yield* Effect.forEach(hashes, (hash) => a.receipt(hash), { concurrency: "unbounded" })
        assert.isTrue(receipts.every((receipt) => receipt.status === "success"))
        const nonces = yield* Effect.forEach(hashes, (hash) =>
          Effect.promise(() => client.getTransaction({ hash }).then((transaction) => transaction.nonce))
        )
        assert.deepStrictEqual(
          [...nonces].sort((x, y) => x - y),
          Array.from({ length: 30 }, (_, i) => i)
        )
        // Not one nonce was signed twice (a collision the node refused would have left a failed version).
        const versions = yield* Effect.forEach(
          Array.from({ length: 31 }, (_, i) => i),
          (nonce) => journal.versions(chainId, key.address, nonce)
        )
        assert.deepStrictEqual(
          versions.map((of) => of.map((version) => version.status)),
          [...Array.from({ length: 30 }, () => ["confirmed"]), []]
        )
      }).pipe(Effect.scoped),
    60_000
  )
})
