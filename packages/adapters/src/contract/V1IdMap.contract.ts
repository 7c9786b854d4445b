/**
 * The contract of `V1IdMap`: ids map both ways, numbers are allocated once per nanoid and never twice (also when
 * allocations race), imports can run again, a contradicting mapping is refused, and paging returns every mapping once.
 */
import { assert, describe, it } from "@effect/vitest"
import { V1IdMap, type V1IdMapping } from "@svc/domain/migration"
import { Effect, Option } from "effect"
import { teamId, userId, wallet } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** Registers the suite for `storage`. */
export const v1IdMapContract = (storage: StorageUnderTest) =>
  describe(`V1IdMap (${storage.name})`, () => {
    it.live("records mappings both ways, skips those stored already, refuses contradictions", () =>
      Effect.gen(function* () {
        const ids = yield* V1IdMap
        const mappings: Array<V1IdMapping> = [
          { kind: "team", v1: "7", nanoid: teamId(1) },
          { kind: "user", v1: "7", nanoid: userId(1) },
          { kind: "svcid", v1: wallet(1).toLowerCase(), nanoid: userId(1) }
        ]
        yield* ids.record(mappings)
        yield* ids.record(mappings)
        assert.deepStrictEqual(yield* ids.nanoidOf("team", "7"), Option.some(teamId(1)))
        assert.deepStrictEqual(yield* ids.nanoidOf("user", "7"), Option.some(userId(1)))
        assert.deepStrictEqual(yield* ids.v1Of("svcid", userId(1)), Option.some(wallet(1).toLowerCase()))
        assert.deepStrictEqual(yield* ids.nanoidOf("team", "8"), Option.none())
        assert.deepStrictEqual(yield* ids.v1Of("user", userId(2)), Option.none())
        const sameV1 = yield* Effect.flip(ids.record([{ kind: "team", v1: "7", nanoid: teamId(2) }]))
        assert.strictEqual(sameV1._tag, "V1IdConflict")
        assert.deepStrictEqual(sameV1.stored, { kind: "team", v1: "7", nanoid: teamId(1) })
        const sameNanoid = yield* Effect.flip(ids.record([{ kind: "team", v1: "9", nanoid: teamId(1) }]))
        assert.deepStrictEqual(sameNanoid.stored, { kind: "team", v1: "7", nanoid: teamId(1) })
        assert.deepStrictEqual(yield* ids.nanoidOf("team", "9"), Option.none())
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("allocates one past the largest number of the kind, once per nanoid", () =>
      Effect.gen(function* () {
        const ids = yield* V1IdMap
        assert.strictEqual(yield* ids.allocate("team", teamId(1)), "1")
        yield* ids.record([{ kind: "team", v1: "41", nanoid: teamId(2) }])
        assert.strictEqual(yield* ids.allocate("team", teamId(3)), "42")
        assert.strictEqual(yield* ids.allocate("team", teamId(1)), "1")
        assert.strictEqual(yield* ids.allocate("team", teamId(2)), "41")
        // Kinds count apart.
        assert.strictEqual(yield* ids.allocate("user", userId(1)), "1")
        assert.deepStrictEqual(yield* ids.nanoidOf("team", "42"), Option.some(teamId(3)))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("many at once: allocates in order, and looks up both ways, leaving out what is not mapped", () =>
      Effect.gen(function* () {
        const ids = yield* V1IdMap
        yield* ids.record([{ kind: "user", v1: "10", nanoid: userId(2) }])
        assert.deepStrictEqual(yield* ids.allocateMany("user", [userId(1), userId(2), userId(3), userId(1)]), [
          "11",
          "10",
          "12",
          "11"
        ])
        assert.deepStrictEqual(
          yield* ids.nanoidsOf("user", ["10", "12", "99"]),
          new Map([
            ["10", userId(2)],
            ["12", userId(3)]
          ])
        )
        assert.deepStrictEqual(yield* ids.v1IdsOf("user", [userId(1), userId(9)]), new Map([[userId(1), "11"]]))
        assert.deepStrictEqual(yield* ids.allocateMany("team", []), [])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("concurrent first sights agree on one number, and distinct nanoids get distinct numbers", () =>
      Effect.gen(function* () {
        const ids = yield* V1IdMap
        const same = yield* Effect.all(
          Array.from({ length: 10 }, () => ids.allocate("user", userId(5))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(new Set(same).size, 1)
        const distinct = yield* Effect.all(
          Array.from({ length: 10 }, (_, n) => ids.allocate("user", userId(100 + n))),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(new Set([...same, ...distinct]).size, 11)
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("pages through every mapping exactly once", () =>
      Effect.gen(function* () {
        const ids = yield* V1IdMap
        const all = Array.from(
          { length: 25 },
          (_, n): V1IdMapping => ({
            kind: n % 2 === 0 ? "team" : "user",
            v1: String(n + 1),
            nanoid: n % 2 === 0 ? teamId(n) : userId(n)
          })
        )
        yield* ids.record(all)
        const seen: Array<V1IdMapping> = []
        let cursor: string | undefined
        for (let guard = 0; guard < 10; guard++) {
          const page = yield* ids.page(cursor, 10)
          seen.push(...page.mappings)
          cursor = page.next
          if (cursor === undefined) break
        }
        const key = (m: V1IdMapping) => `${m.kind}:${m.v1}:${m.nanoid}`
        assert.deepStrictEqual(seen.map(key).sort(), all.map(key).sort())
      }).pipe(Effect.provide(storage.layer()))
    )
  })
