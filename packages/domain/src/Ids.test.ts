import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { IdGenerator, IdKinds, idLength, TeamId, UserId } from "./Ids.ts"

describe("Ids", () => {
  it("accepts a team id of exactly 15 characters", () => {
    assert.strictEqual(Schema.decodeUnknownSync(TeamId)("te-abcdefABCDEF"), "te-abcdefABCDEF")
  })

  it("refuses 14 and 16 characters, naming the kind and the rule", () => {
    for (const input of ["te-abcdefABCDE", "te-abcdefABCDEFG"]) {
      const result = Schema.decodeUnknownExit(TeamId)(input)
      assert.isTrue(result._tag === "Failure", input)
      assert.include(String(result), "team id")
      assert.include(String(result), "15 in all")
    }
  })

  it("refuses a wrong prefix", () => {
    const result = Schema.decodeUnknownExit(UserId)("te-abcdefABCDEF")
    assert.isTrue(result._tag === "Failure")
    assert.include(String(result), "user id")
  })

  it.effect("generates ids that parse as their kind and do not repeat", () =>
    Effect.gen(function* () {
      const ids = yield* IdGenerator
      const seen = new Set<string>()
      for (const kind of Object.keys(IdKinds) as Array<keyof typeof IdKinds>) {
        for (let i = 0; i < 50; i++) {
          const id = yield* ids.make(kind)
          assert.strictEqual(id.length, idLength)
          assert.isTrue(id.startsWith(IdKinds[kind].prefix))
          assert.isFalse(seen.has(id))
          seen.add(id)
        }
      }
      assert.strictEqual(Schema.decodeUnknownSync(TeamId)(yield* ids.make("team")).length, idLength)
    }).pipe(Effect.provide(IdGenerator.layer))
  )

  it.effect("the test generator is deterministic", () =>
    Effect.gen(function* () {
      const ids = yield* IdGenerator
      assert.strictEqual(yield* ids.make("team"), "te-000000000001")
      assert.strictEqual(yield* ids.make("team"), "te-000000000002")
      assert.strictEqual(yield* ids.make("user"), "us-000000000001")
    }).pipe(Effect.provide(IdGenerator.layerTest))
  )
})
