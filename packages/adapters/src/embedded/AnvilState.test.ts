import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createTestClient, http, publicActions, walletActions } from "viem"
import { startAnvil } from "./Anvil.ts"
import { persistAnvilState } from "./AnvilState.ts"

// anvil's first default account: unlocked on every anvil, so it can send without a key.
const sender = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
const receiver = "0x00000000000000000000000000000000000000b0"

const clientOf = (rpcUrl: string) =>
  createTestClient({ mode: "anvil", transport: http(rpcUrl) })
    .extend(publicActions)
    .extend(walletActions)

/** The newest block of a saved chain (anvil saves gzipped JSON as hex), if the file holds one. */
const savedBlockOf = (file: string): bigint | undefined => {
  try {
    const hex = readFileSync(file, "utf8").trim().replace(/^0x/, "")
    const state = JSON.parse(gunzipSync(Buffer.from(hex, "hex")).toString("utf8")) as { best_block_number: number }
    return BigInt(state.best_block_number)
  } catch {
    return undefined
  }
}

const tempFile = () => join(mkdtempSync(join(tmpdir(), "anvil-state-")), "chain.json")

describe("persistAnvilState", () => {
  it.live("a chain saved when its scope closes is loaded by the next anvil: blocks and balances", () =>
    Effect.gen(function* () {
      const file = tempFile()
      const first = yield* Effect.scoped(
        Effect.gen(function* () {
          const anvil = yield* startAnvil()
          const persisted = yield* persistAnvilState({ rpcUrl: anvil.rpcUrl, file, every: "1 hour" })
          assert.isUndefined(persisted.savedAt)
          const client = clientOf(anvil.rpcUrl)
          const hash = yield* Effect.promise(() =>
            client.sendTransaction({ account: sender, to: receiver, value: 12_345n, chain: null })
          )
          // anvil answers the hash before it mines the block: its block is the one the receipt names.
          return (yield* Effect.promise(() => client.waitForTransactionReceipt({ hash }))).blockNumber
        })
      )
      assert.isAbove(Number(first), 0)
      const restored = yield* Effect.scoped(
        Effect.gen(function* () {
          const anvil = yield* startAnvil()
          const persisted = yield* persistAnvilState({ rpcUrl: anvil.rpcUrl, file, every: "1 hour" })
          assert.isDefined(persisted.savedAt)
          const client = clientOf(anvil.rpcUrl)
          return {
            block: yield* Effect.promise(() => client.getBlockNumber()),
            balance: yield* Effect.promise(() => client.getBalance({ address: receiver }))
          }
        })
      )
      assert.strictEqual(restored.block, first)
      assert.strictEqual(restored.balance, 12_345n)
      rmSync(file)
    })
  )

  it.live("while running it saves the chain within the interval, as a whole file", () =>
    Effect.gen(function* () {
      const file = tempFile()
      yield* Effect.scoped(
        Effect.gen(function* () {
          const anvil = yield* startAnvil()
          yield* persistAnvilState({ rpcUrl: anvil.rpcUrl, file, every: "50 millis" })
          const client = clientOf(anvil.rpcUrl)
          const hash = yield* Effect.promise(() =>
            client.sendTransaction({ account: sender, to: receiver, value: 1n, chain: null })
          )
          // anvil answers the hash before it mines the block: its block is the one the receipt names.
          const mined = (yield* Effect.promise(() => client.waitForTransactionReceipt({ hash }))).blockNumber
          // Poll the file (no fixed wait; up to 30 s on a loaded machine) until a save holds the mined block.
          let saved: bigint | undefined
          for (let i = 0; i < 1500 && saved !== mined; i++) {
            yield* Effect.sleep("20 millis")
            saved = savedBlockOf(file)
          }
          assert.strictEqual(saved, mined)
          // A second anvil loads what was saved while the first still runs.
          const copy = yield* Effect.scoped(
            Effect.gen(function* () {
              const other = yield* startAnvil()
              yield* persistAnvilState({ rpcUrl: other.rpcUrl, file, every: "1 hour" })
              return yield* Effect.promise(() => clientOf(other.rpcUrl).getBlockNumber())
            })
          )
          assert.strictEqual(copy, mined)
        })
      )
      rmSync(file)
    })
  )

  it.live("a file that is not a saved chain stops the start with an error naming it", () =>
    Effect.gen(function* () {
      const file = tempFile()
      writeFileSync(file, "not a chain")
      const error = yield* Effect.scoped(
        Effect.gen(function* () {
          const anvil = yield* startAnvil()
          return yield* persistAnvilState({ rpcUrl: anvil.rpcUrl, file })
        })
      ).pipe(Effect.flip)
      assert.strictEqual(error._tag, "AnvilStateError")
      assert.strictEqual(error._tag === "AnvilStateError" ? error.file : undefined, file)
      assert.strictEqual(readFileSync(file, "utf8"), "not a chain")
    })
  )
})
