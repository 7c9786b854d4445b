import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { batchesOf, csvFields, parseCsv, parseToEntry } from "./Payees.ts"

describe("Payees", () => {
  it.effect("--to entries are RECIPIENT=AMOUNT", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(yield* parseToEntry("us-abcdefghijkl=12.34", "Payment"), {
        to: "us-abcdefghijkl",
        amount_cents: 1234,
        invoice_description: "Payment"
      })
      assert.include((yield* Effect.flip(parseToEntry("us-abcdefghijkl", "x"))).message, "RECIPIENT=AMOUNT")
      assert.include((yield* Effect.flip(parseToEntry("te-abcdefghijkl=1", "x"))).message, "not a user nanoid")
    })
  )

  it.effect("a CSV with a header, comments, quoted descriptions and default descriptions", () =>
    Effect.gen(function* () {
      const text = [
        "recipient,amount,description",
        "# March",
        'us-aaaaaaaaaaaa,12.34,"Design, March"',
        "",
        "us-bbbbbbbbbbbb,5"
      ].join("\r\n")
      assert.deepStrictEqual(yield* parseCsv("pay.csv", text, "Payment"), [
        { to: "us-aaaaaaaaaaaa", amount_cents: 1234, invoice_description: "Design, March" },
        { to: "us-bbbbbbbbbbbb", amount_cents: 500, invoice_description: "Payment" }
      ])
    })
  )

  it.effect("a bad CSV line is named by file and line", () =>
    Effect.gen(function* () {
      const failure = yield* Effect.flip(parseCsv("pay.csv", "us-aaaaaaaaaaaa,1\nus-bbbbbbbbbbbb,1.001\n", "x"))
      assert.include(failure.message, "pay.csv line 2")
      assert.include((yield* Effect.flip(parseCsv("empty.csv", "recipient,amount\n", "x"))).message, "names no payee")
    })
  )

  it("quoted fields and batches", () => {
    assert.deepStrictEqual(csvFields('a,"b ""c"", d",e'), ["a", 'b "c", d', "e"])
    assert.deepStrictEqual(batchesOf([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]])
  })
})
