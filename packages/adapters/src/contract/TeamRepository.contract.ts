/**
 * The contract of `TeamRepository`: teams by id, by ids and by company; updates applied atomically.
 */
import { assert, describe, it } from "@effect/vitest"
import { TeamRepository } from "@svc/domain/team"
import { Effect, Option } from "effect"
import { companyId, team, teamId } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** Registers the suite for `storage`. */
export const teamRepositoryContract = (storage: StorageUnderTest) =>
  describe(`TeamRepository (${storage.name})`, () => {
    it.live("insert, find by id, by ids and by company; update answers the team as changed, none when unknown", () =>
      Effect.gen(function* () {
        const teams = yield* TeamRepository
        yield* teams.insert(team(1))
        yield* teams.insert(team(2))
        yield* teams.insert(team(3, companyId(2)))
        assert.deepStrictEqual(Option.getOrThrow(yield* teams.findById(teamId(1))), team(1))
        assert.isTrue(Option.isNone(yield* teams.findById(teamId(9))))
        assert.deepStrictEqual(
          (yield* teams.findByIds([teamId(3), teamId(1), teamId(9)])).map((t) => t.nanoid).sort(),
          [teamId(1), teamId(3)]
        )
        assert.deepStrictEqual(yield* teams.findByIds([]), [])
        assert.deepStrictEqual((yield* teams.listByCompany(companyId(1))).map((t) => t.nanoid).sort(), [
          teamId(1),
          teamId(2)
        ])
        assert.deepStrictEqual(yield* teams.listByCompany(companyId(9)), [])

        const updated = yield* teams.update(teamId(1), { name: "Renamed", updated_at: "2026-02-01T00:00:00.000Z" })
        assert.deepStrictEqual(Option.getOrThrow(updated), {
          ...team(1),
          name: "Renamed",
          updated_at: "2026-02-01T00:00:00.000Z"
        })
        assert.deepStrictEqual(Option.getOrThrow(yield* teams.findById(teamId(1))), Option.getOrThrow(updated))
        assert.isTrue(Option.isNone(yield* teams.update(teamId(9), { name: "x" })))
        assert.isTrue(Option.isNone(yield* teams.findById(teamId(9))))
        // A deleted team is still found: callers decide what deleted means to them.
        yield* teams.update(teamId(2), { status: "deleted" })
        assert.strictEqual(Option.getOrThrow(yield* teams.findById(teamId(2))).status, "deleted")
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("concurrent updates of different fields both apply", () =>
      Effect.gen(function* () {
        const teams = yield* TeamRepository
        yield* teams.insert(team(1))
        yield* Effect.all(
          [teams.update(teamId(1), { name: "Named" }), teams.update(teamId(1), { description: "Described" })],
          { concurrency: "unbounded" }
        )
        const found = Option.getOrThrow(yield* teams.findById(teamId(1)))
        assert.deepStrictEqual([found.name, found.description], ["Named", "Described"])
      }).pipe(Effect.provide(storage.layer()))
    )
  })
