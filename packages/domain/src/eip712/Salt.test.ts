/**
 * Salts as the service hands them out (decision 0065): the 256 bits of a random 248-bit word in turn, then a new word;
 * the forwarder keeps used salts as bits of their word, so requests issued together share one storage slot.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Randomness } from "../Randomness.ts"
import { makeSalt } from "./TypedDataBuilder.ts"

describe("makeSalt", () => {
  it.effect("hands out the bits of one word in turn, then those of a new random word; never one twice", () =>
    Effect.gen(function* () {
      const salts = (yield* Effect.replicateEffect(makeSalt, 600)).map(BigInt)
      assert.strictEqual(new Set(salts).size, 600)
      const words = salts.map((salt) => salt >> 8n)
      const bits = salts.map((salt) => Number(salt & 255n))
      assert.deepStrictEqual(bits.slice(0, 256), [...Array(256).keys()])
      assert.strictEqual(new Set(words.slice(0, 256)).size, 1)
      assert.strictEqual(new Set(words.slice(256, 512)).size, 1)
      assert.notStrictEqual(words[0], words[256])
      assert.strictEqual(bits[256], 0)
      // Every salt fits the forwarder's uint256.
      assert.isTrue(salts.every((salt) => salt < 2n ** 256n))
    }).pipe(Effect.provide(Randomness.layer))
  )
})
