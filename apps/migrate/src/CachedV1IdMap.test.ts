import { assert, describe, it } from "@effect/vitest"
import { SqliteDatabase, SqliteV1IdMap } from "@svc/adapters/sqlite"
import { V1IdMap } from "@svc/domain/migration"
import { cachedIdMap } from "@svc/v1"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"

const idMap = SqliteV1IdMap.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: ":memory:" })), Layer.orDie)

describe("cachedIdMap", () => {
  it.effect("answers as the store does, first from the store and then from the cache, within its capacity", () =>
    Effect.gen(function* () {
      const stored = yield* V1IdMap
      const cached = cachedIdMap(stored, 2)
      yield* stored.record([{ kind: "team", v1: "5", nanoid: "te-AAAAAAAAAAAA" }])
      assert.deepStrictEqual(yield* cached.nanoidOf("team", "5"), Option.some("te-AAAAAAAAAAAA"))
      assert.deepStrictEqual(yield* cached.v1Of("team", "te-AAAAAAAAAAAA"), Option.some("5"))
      assert.deepStrictEqual(yield* cached.nanoidOf("team", "6"), Option.none())
      assert.deepStrictEqual(yield* cached.allocateMany("user", ["us-AAAAAAAAAAAA", "us-BBBBBBBBBBBB"]), ["1", "2"])
      assert.deepStrictEqual(yield* cached.allocate("user", "us-AAAAAAAAAAAA"), "1")
      assert.deepStrictEqual(
        yield* cached.v1IdsOf("user", ["us-BBBBBBBBBBBB", "us-CCCCCCCCCCCC"]),
        new Map([["us-BBBBBBBBBBBB", "2"]])
      )
      assert.deepStrictEqual(yield* cached.nanoidsOf("team", ["5"]), new Map([["5", "te-AAAAAAAAAAAA"]]))
      // Evicted entries are read from the store again.
      assert.deepStrictEqual(yield* cached.nanoidOf("team", "5"), Option.some("te-AAAAAAAAAAAA"))
      assert.deepStrictEqual(yield* stored.v1Of("user", "us-BBBBBBBBBBBB"), Option.some("2"))
    }).pipe(Effect.provide(idMap))
  )

  it.effect("remembers what the store does not map for a while; its own records end that at once", () =>
    Effect.gen(function* () {
      const stored = yield* V1IdMap
      const cached = cachedIdMap(stored, 100, 2_000)
      const address = "0x00000000000000000000000000000000000000aa"
      assert.deepStrictEqual(yield* cached.v1IdsOf("svcid", ["us-AAAAAAAAAAAA"]), new Map())
      // Recorded by another process (straight in the store): not seen while remembered absent, seen after.
      yield* stored.record([{ kind: "svcid", v1: address, nanoid: "us-AAAAAAAAAAAA" }])
      assert.deepStrictEqual(yield* cached.v1IdsOf("svcid", ["us-AAAAAAAAAAAA"]), new Map())
      assert.deepStrictEqual(yield* cached.v1Of("svcid", "us-AAAAAAAAAAAA"), Option.none())
      yield* TestClock.adjust("2001 millis")
      assert.deepStrictEqual(
        yield* cached.v1IdsOf("svcid", ["us-AAAAAAAAAAAA"]),
        new Map([["us-AAAAAAAAAAAA", address]])
      )
      // Recorded through the cache: seen at once, whichever way it is asked.
      assert.deepStrictEqual(
        yield* cached.nanoidOf("svcid", "0x00000000000000000000000000000000000000bb"),
        Option.none()
      )
      assert.deepStrictEqual(yield* cached.v1IdsOf("svcid", ["us-BBBBBBBBBBBB"]), new Map())
      yield* cached.record([
        { kind: "svcid", v1: "0x00000000000000000000000000000000000000bb", nanoid: "us-BBBBBBBBBBBB" }
      ])
      assert.deepStrictEqual(
        yield* cached.nanoidOf("svcid", "0x00000000000000000000000000000000000000bb"),
        Option.some("us-BBBBBBBBBBBB")
      )
      assert.deepStrictEqual(
        yield* cached.v1IdsOf("svcid", ["us-BBBBBBBBBBBB"]),
        new Map([["us-BBBBBBBBBBBB", "0x00000000000000000000000000000000000000bb"]])
      )
    }).pipe(Effect.provide(idMap))
  )
})
