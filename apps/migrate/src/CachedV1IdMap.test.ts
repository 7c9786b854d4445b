import { assert, describe, it } from "@effect/vitest"
import { SqliteDatabase, SqliteV1IdMap } from "@svc/adapters/sqlite"
import { V1IdMap } from "@svc/domain/migration"
import { Effect, Layer, Option } from "effect"
import { cachedIdMap } from "./CachedV1IdMap.ts"

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
})
