/**
 * The block cursor both chain followers stand on: one hash read while the chain holds the cursor's block, and after a
 * reorganisation (at the same height, or a chain shorter than the cursor) a cursor `window` blocks under the lower of
 * the two, which the chain holds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { Hex } from "viem"
import { type BlockCursor, checkCursor } from "./BlockCursor.ts"

/** A chain of `length` blocks whose hashes name their fork; `reads` counts what the check asked. */
const chainOf = (length: number, fork: (block: number) => string) => {
  const reads: Array<number> = []
  const hashAt = (block: number) =>
    Effect.sync(() => {
      reads.push(block)
      return block < length ? (`0x${fork(block)}${block.toString(16).padStart(8, "0")}` as Hex) : undefined
    })
  return { reads, hashAt, head: length - 1 }
}

describe("checkCursor", () => {
  it.effect("while the chain holds the cursor's block, one read and the same cursor", () =>
    Effect.gen(function* () {
      const chain = chainOf(100, () => "aa")
      const cursor: BlockCursor = { block: 90, hash: "0xaa0000005a" }
      assert.deepStrictEqual(yield* checkCursor(cursor, chain.head, chain.hashAt, 64), { cursor, reorged: false })
      assert.deepStrictEqual(chain.reads, [90])
    })
  )

  it.effect("a cursor that never read a block is taken as it is, without a read", () =>
    Effect.gen(function* () {
      const chain = chainOf(100, () => "aa")
      const cursor: BlockCursor = { block: 41, hash: "" }
      assert.deepStrictEqual(yield* checkCursor(cursor, chain.head, chain.hashAt, 64), { cursor, reorged: false })
      assert.deepStrictEqual(chain.reads, [])
    })
  )

  it.effect("a fork at the same height moves the cursor a window back, onto a block the chain holds", () =>
    Effect.gen(function* () {
      const chain = chainOf(120, (block) => (block > 85 ? "bb" : "aa"))
      const check = yield* checkCursor({ block: 90, hash: "0xaa0000005a" }, chain.head, chain.hashAt, 64)
      assert.deepStrictEqual(check, { cursor: { block: 26, hash: "0xaa0000001a" }, reorged: true })
    })
  )

  it.effect("a chain now shorter than the cursor (a node restored from older state) rewinds from its head", () =>
    Effect.gen(function* () {
      const chain = chainOf(50, () => "aa")
      const check = yield* checkCursor({ block: 90, hash: "0xaa0000005a" }, chain.head, chain.hashAt, 10)
      assert.deepStrictEqual(check, { cursor: { block: 39, hash: "0xaa00000027" }, reorged: true })
      // The cursor's block is past the head: not asked for.
      assert.deepStrictEqual(chain.reads, [39])
    })
  )

  it.effect("near genesis the cursor goes back to before the first block", () =>
    Effect.gen(function* () {
      const chain = chainOf(30, () => "cc")
      const check = yield* checkCursor({ block: 20, hash: "0xaa00000014" }, chain.head, chain.hashAt, 64)
      assert.deepStrictEqual(check, { cursor: { block: -1, hash: "" }, reorged: true })
    })
  )
})
