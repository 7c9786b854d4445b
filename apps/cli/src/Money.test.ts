import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { formatCents, parseCents } from "./Money.ts"

describe("Money", () => {
  it.effect("reads dollars and cents as integer cents", () =>
    Effect.gen(function* () {
      assert.strictEqual(yield* parseCents("--amount", "12.34"), 1234)
      assert.strictEqual(yield* parseCents("--amount", "12.3"), 1230)
      assert.strictEqual(yield* parseCents("--amount", "12"), 1200)
      assert.strictEqual(yield* parseCents("--amount", "0.01"), 1)
      assert.strictEqual(yield* parseCents("--amount", " 100000000.00 "), 10_000_000_000)
      assert.strictEqual(yield* parseCents("--hourly-rate", "0", { allowZero: true }), 0)
    })
  )

  it.effect("refuses more than two decimals, signs, zero and text, naming the argument", () =>
    Effect.gen(function* () {
      const three = yield* Effect.flip(parseCents("--to", "1.234"))
      assert.include(three.message, "--to")
      assert.include(three.message, "more than 2 decimals")
      for (const text of ["-1", "1,5", "abc", "", "1e3", "0", "0.00"]) {
        const failure = yield* Effect.flip(parseCents("--amount", text))
        assert.include(failure.message, "invalid --amount")
      }
    })
  )

  it("prints cents as dollars with thousands separators", () => {
    assert.strictEqual(formatCents(1234), "$12.34")
    assert.strictEqual(formatCents(5), "$0.05")
    assert.strictEqual(formatCents(10_000_000), "$100,000.00")
    assert.strictEqual(formatCents(-250), "-$2.50")
  })
})
