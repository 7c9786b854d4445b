import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { createTestClient, http, publicActions, walletActions } from "viem"
import { afterAll } from "vitest"
import { eventually } from "../../test/Eventually.ts"
import { startAnvil } from "./Anvil.ts"
import { persistAnvilState } from "./AnvilState.ts"

// anvil's first default account: unlocked on every anvil, so it can send without a key.
const sender = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
const receiver = "0x00000000000000000000000000000000000000b0"

const clientOf = (rpcUrl: string) =>
  createTestClient({ mode: "anvil", transport: http(rpcUrl) })
    .extend(publicActions)
    .extend(walletActions)

/** The newest block of a saved chain (anvil's state as JSON), if the file holds one. */
const savedBlockOf = (file: string): bigint | undefined => {
  try {
    const state = JSON.parse(readFileSync(file, "utf8")) as { best_block_number: number }
    return BigInt(state.best_block_number)
  } catch {
    return undefined
  }
}

/** The directories `tempFile` made, removed when the file's tests are done (a test removes only its file). */
const tempDirectories: Array<string> = []
const tempFile = () => {
  const directory = mkdtempSync(join(tmpdir(), "anvil-state-"))
  tempDirectories.push(directory)
  return join(directory, "chain.json")
}
afterAll(() => {
  for (const directory of tempDirectories) rmSync(directory, { recursive: true, force: true })
})

describe("persistAnvilState", () => {
  it.live("a chain saved when its scope closes is loaded by the next anvil: blocks and balances", () =>
    Effect.gen(function* () {
      const file = tempFile()
      const first = yield* Effect.scoped(
        Effect.gen(function* () {
          const anvil = yield* startAnvil({ stateFile: file })
          const persisted = yield* persistAnvilState({ anvil, every: "1 hour" })
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
          const anvil = yield* startAnvil({ stateFile: file })
          const persisted = yield* persistAnvilState({ anvil, every: "1 hour" })
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
          const anvil = yield* startAnvil({ stateFile: file })
          yield* persistAnvilState({ anvil, every: "50 millis" })
          const client = clientOf(anvil.rpcUrl)
          const hash = yield* Effect.promise(() =>
            client.sendTransaction({ account: sender, to: receiver, value: 1n, chain: null })
          )
          // anvil answers the hash before it mines the block: its block is the one the receipt names.
          const mined = (yield* Effect.promise(() => client.waitForTransactionReceipt({ hash }))).blockNumber
          // A save holds the mined block.
          yield* eventually(() => savedBlockOf(file) === mined, { what: `a save holding block ${mined}` })
          // A second anvil loads what was saved while the first still runs.
          const copy = yield* Effect.scoped(
            Effect.gen(function* () {
              const other = yield* startAnvil({ stateFile: file })
              yield* persistAnvilState({ anvil: other, every: "1 hour" })
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
      const error = yield* Effect.scoped(startAnvil({ stateFile: file })).pipe(Effect.flip)
      assert.strictEqual(error._tag, "AnvilStateError")
      assert.strictEqual(error._tag === "AnvilStateError" ? error.file : undefined, file)
      assert.strictEqual(readFileSync(file, "utf8"), "not a chain")
    })
  )

  it.live("a cut-off JSON state is refused by anvil with an error naming the file", () =>
    Effect.gen(function* () {
      const file = tempFile()
      writeFileSync(file, '{"block":{"number":')
      const error = yield* Effect.scoped(startAnvil({ stateFile: file })).pipe(Effect.flip)
      assert.strictEqual(error._tag, "AnvilStateError")
      assert.strictEqual(error._tag === "AnvilStateError" ? error.file : undefined, file)
      assert.include(error.message, "anvil could not load the saved chain")
    })
  )

  it.live(
    "a chain saved in the earlier form (gzipped JSON in hex) is converted once, keeping its time, and loads",
    () =>
      Effect.gen(function* () {
        const file = tempFile()
        const savedAt = new Date("2026-01-02T03:04:05Z")
        const mined = yield* Effect.scoped(
          Effect.gen(function* () {
            const anvil = yield* startAnvil()
            const client = clientOf(anvil.rpcUrl)
            const hash = yield* Effect.promise(() =>
              client.sendTransaction({ account: sender, to: receiver, value: 777n, chain: null })
            )
            const block = (yield* Effect.promise(() => client.waitForTransactionReceipt({ hash }))).blockNumber
            // What the saver wrote before: anvil_dumpState's answer as it came.
            const dump = yield* Effect.promise(() => client.request({ method: "anvil_dumpState" } as never))
            writeFileSync(file, String(dump))
            utimesSync(file, savedAt, savedAt)
            return block
          })
        )
        const restored = yield* Effect.scoped(
          Effect.gen(function* () {
            const anvil = yield* startAnvil({ stateFile: file })
            const client = clientOf(anvil.rpcUrl)
            return {
              savedAt: anvil.savedAt,
              block: yield* Effect.promise(() => client.getBlockNumber()),
              balance: yield* Effect.promise(() => client.getBalance({ address: receiver }))
            }
          })
        )
        assert.strictEqual(restored.savedAt, savedAt.getTime())
        assert.strictEqual(restored.block, mined)
        assert.strictEqual(restored.balance, 777n)
        assert.strictEqual(savedBlockOf(file), mined)
        rmSync(file)
      })
  )

  it.live(
    "a chain of more than 20 MB is saved and loaded whole (anvil's RPC refuses a load past about 2 MiB)",
    () =>
      Effect.gen(function* () {
        const file = tempFile()
        // 450 contracts of 24 KB each: about 22 MB of JSON.
        const contracts = Array.from(
          { length: 450 },
          (_, i) => `0x${(0x10000 + i).toString(16).padStart(40, "0")}` as const
        )
        // Random, so it does not compress: anvil's RPC refused even the gzipped form of such a chain.
        const codes = contracts.map(() => `0x${randomBytes(24_000).toString("hex")}` as const)
        const codeOf = (i: number) => codes[i]!
        const mined = yield* Effect.scoped(
          Effect.gen(function* () {
            const anvil = yield* startAnvil({ stateFile: file })
            yield* persistAnvilState({ anvil, every: "1 hour" })
            const client = clientOf(anvil.rpcUrl)
            yield* Effect.forEach(
              contracts,
              (address, i) => Effect.promise(() => client.setCode({ address, bytecode: codeOf(i) })),
              { concurrency: 8 }
            )
            const hash = yield* Effect.promise(() =>
              client.sendTransaction({ account: sender, to: receiver, value: 4_242n, chain: null })
            )
            return (yield* Effect.promise(() => client.waitForTransactionReceipt({ hash }))).blockNumber
          })
        )
        const size = statSync(file).size
        assert.isAbove(size, 20 * 1024 * 1024)
        const restored = yield* Effect.scoped(
          Effect.gen(function* () {
            const anvil = yield* startAnvil({ stateFile: file })
            const client = clientOf(anvil.rpcUrl)
            return {
              block: yield* Effect.promise(() => client.getBlockNumber()),
              balance: yield* Effect.promise(() => client.getBalance({ address: receiver })),
              first: yield* Effect.promise(() => client.getCode({ address: contracts[0]! })),
              last: yield* Effect.promise(() => client.getCode({ address: contracts[contracts.length - 1]! }))
            }
          })
        )
        assert.strictEqual(restored.block, mined)
        assert.strictEqual(restored.balance, 4_242n)
        assert.strictEqual(restored.first, codeOf(0))
        assert.strictEqual(restored.last, codeOf(contracts.length - 1))
        rmSync(file)
      }),
    120_000
  )
})
