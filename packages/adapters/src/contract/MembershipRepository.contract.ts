/**
 * The contract of `MembershipRepository`: one membership per team and user; a team's members in joining order,
 * filtered by e-mail (any letter case) and role, paged after filtering, with the total; counts per team; removal; a
 * member's block, moved only from the state it is in, and the blocks left half-done, oldest first (decision 0107).
 */
import { assert, describe, it } from "@effect/vitest"
import { MembershipRepository } from "@svc/domain/membership"
import { Effect, Exit, Option } from "effect"
import { membership, teamId, userId } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** Registers the suite for `storage`. */
export const membershipRepositoryContract = (storage: StorageUnderTest) =>
  describe(`MembershipRepository (${storage.name})`, () => {
    it.live("unique per team and user; ordered, filtered, paged, counted, removed", () =>
      Effect.gen(function* () {
        const memberships = yield* MembershipRepository
        const t = teamId(1)
        // Inserted out of joining order: the order comes from `created_at`.
        for (const i of [3, 1, 5, 2, 4]) {
          yield* memberships.insert(membership(i, t, userId(i), i === 1 ? "team_admin" : "team_employee"))
        }
        const duplicate = yield* Effect.flip(memberships.insert(membership(99, t, userId(1), "team_viewer")))
        assert.strictEqual(duplicate._tag, "AlreadyMember")
        assert.deepStrictEqual(Option.getOrThrow(yield* memberships.find(t, userId(1))), {
          ...membership(1, t, userId(1), "team_admin"),
          email: "u1@example.com"
        })
        assert.isTrue(Option.isNone(yield* memberships.find(t, userId(9))))

        const all = yield* memberships.listTeam(t, { offset: 0, limit: undefined })
        assert.deepStrictEqual(
          all.members.map((m) => m.user_nanoid),
          [1, 2, 3, 4, 5].map(userId)
        )
        assert.strictEqual(all.total, 5)
        const page = yield* memberships.listTeam(t, { offset: 1, limit: 2 })
        assert.deepStrictEqual(
          page.members.map((m) => m.user_nanoid),
          [userId(2), userId(3)]
        )
        assert.strictEqual(page.total, 5)
        const beyond = yield* memberships.listTeam(t, { offset: 10, limit: 2 })
        assert.deepStrictEqual([beyond.members.length, beyond.total], [0, 5])
        const filtered = yield* memberships.listTeam(t, {
          emails: ["U4@example.COM", "nobody@x.io"],
          offset: 0,
          limit: undefined
        })
        assert.deepStrictEqual(
          filtered.members.map((m) => m.user_nanoid),
          [userId(4)]
        )
        assert.strictEqual(filtered.total, 1)
        const admins = yield* memberships.listTeam(t, { roles: ["team_admin"], offset: 0, limit: undefined })
        assert.deepStrictEqual([admins.members.map((m) => m.user_nanoid), admins.total], [[userId(1)], 1])
        const employees = yield* memberships.listTeam(t, {
          roles: ["team_employee", "team_viewer"],
          offset: 1,
          limit: 2
        })
        assert.deepStrictEqual(
          [employees.members.map((m) => m.user_nanoid), employees.total],
          [[userId(3), userId(4)], 4]
        )
        const none = yield* memberships.listTeam(t, { emails: [], offset: 0, limit: undefined })
        assert.deepStrictEqual([none.members.length, none.total], [0, 0])

        const other = teamId(2)
        yield* memberships.insert(membership(50, other, userId(1), "team_viewer"))
        const counts = yield* memberships.countByTeams([t, other, teamId(3)])
        assert.deepStrictEqual([counts.get(t), counts.get(other), counts.get(teamId(3))], [5, 1, 0])
        assert.deepStrictEqual(
          (yield* memberships.listByUser(userId(1))).map((m) => m.team_nanoid),
          [t, other]
        )
        assert.isTrue(yield* memberships.remove(t, userId(5)))
        assert.isFalse(yield* memberships.remove(t, userId(5)))
        assert.isTrue(Option.isNone(yield* memberships.find(t, userId(5))))
        assert.strictEqual((yield* memberships.listTeam(t, { offset: 0, limit: undefined })).total, 4)
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a block moves only from the state it is in; half-done blocks are found by their mark", () =>
      Effect.gen(function* () {
        const memberships = yield* MembershipRepository
        const t = teamId(1)
        for (const i of [1, 2, 3]) yield* memberships.insert(membership(i, t, userId(i)))
        const mark = (since: string) => ({ state: "blocking" as const, since, reason: "two accounts", by: userId(9) })
        const marked = yield* memberships.moveBlock(t, userId(2), "active", mark("2026-01-01T00:00:02.000Z"))
        assert.deepStrictEqual(marked.block, mark("2026-01-01T00:00:02.000Z"))
        // A second writer that read `active` loses: the state is read where it is written.
        const stale = yield* Effect.flip(
          memberships.moveBlock(t, userId(2), "active", mark("2026-01-01T00:00:09.000Z"))
        )
        assert.strictEqual(stale._tag, "StaleState")
        yield* memberships.moveBlock(t, userId(1), "active", mark("2026-01-01T00:00:01.000Z"))
        yield* memberships.moveBlock(t, userId(3), "active", mark("2026-01-01T00:00:05.000Z"))
        const pending = yield* memberships.pendingBlocks("2026-01-01T00:00:02.000Z", 10)
        assert.deepStrictEqual(
          pending.map((m) => m.user_nanoid),
          [userId(1), userId(2)]
        )
        assert.deepStrictEqual(
          (yield* memberships.pendingBlocks("2026-01-01T00:00:09.000Z", 1)).map((m) => m.user_nanoid),
          [userId(1)]
        )
        const blocked = { ...mark("2026-01-01T00:00:02.000Z"), state: "blocked" as const }
        yield* memberships.moveBlock(t, userId(2), "blocking", blocked)
        assert.deepStrictEqual(Option.getOrThrow(yield* memberships.find(t, userId(2))).block, blocked)
        assert.strictEqual(
          (yield* Effect.flip(memberships.moveBlock(t, userId(2), "blocking", blocked)))._tag,
          "StaleState"
        )
        // A blocked member is still listed, and a block that is done is not pending.
        assert.strictEqual((yield* memberships.listTeam(t, { offset: 0, limit: undefined })).total, 3)
        assert.deepStrictEqual(
          (yield* memberships.pendingBlocks("2026-01-02T00:00:00.000Z", 10)).map((m) => m.user_nanoid),
          [userId(1), userId(3)]
        )
        const unblocked = yield* memberships.moveBlock(t, userId(2), "blocked", undefined)
        assert.isFalse("block" in unblocked)
        assert.isFalse("block" in Option.getOrThrow(yield* memberships.find(t, userId(2))))
        yield* memberships.moveBlock(t, userId(1), "blocking", undefined)
        assert.deepStrictEqual(
          (yield* memberships.pendingBlocks("2026-01-02T00:00:00.000Z", 10)).map((m) => m.user_nanoid),
          [userId(3)]
        )
        const missing = yield* Effect.flip(
          memberships.moveBlock(t, userId(8), "active", mark("2026-01-01T00:00:01.000Z"))
        )
        assert.strictEqual(missing._tag, "StaleState")
        // A move the block machine lacks (blocked straight to blocking) is a defect, and changes nothing.
        yield* memberships.moveBlock(t, userId(2), "active", blocked)
        const outside = yield* Effect.exit(memberships.moveBlock(t, userId(2), "blocked", mark("2026-01-03")))
        assert.isTrue(Exit.hasDies(outside))
        assert.deepStrictEqual(Option.getOrThrow(yield* memberships.find(t, userId(2))).block, blocked)
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("of ten concurrent additions of one user to a team exactly one succeeds", () =>
      Effect.gen(function* () {
        const memberships = yield* MembershipRepository
        const inserts = yield* Effect.all(
          Array.from({ length: 10 }, (_, i) =>
            Effect.exit(memberships.insert(membership(i + 1, teamId(1), userId(7))))
          ),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(inserts.filter(Exit.isSuccess).length, 1)
        assert.strictEqual((yield* memberships.listTeam(teamId(1), { offset: 0, limit: undefined })).total, 1)
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a removal's mark is set once, kept until cleared or the membership goes, and found once old enough", () =>
      Effect.gen(function* () {
        const memberships = yield* MembershipRepository
        const t = teamId(1)
        yield* memberships.insert(membership(1, t, userId(1), "team_finance_admin"))
        yield* memberships.insert(membership(2, t, userId(2), "team_viewer"))
        // No such member: nothing marked.
        assert.isFalse(yield* memberships.markRemoval(t, userId(9), 1_000))
        assert.isTrue(yield* memberships.markRemoval(t, userId(1), 1_000))
        // A second mark keeps the first time.
        assert.isTrue(yield* memberships.markRemoval(t, userId(1), 5_000))
        assert.strictEqual(Option.getOrThrow(yield* memberships.find(t, userId(1))).removal_since, 1_000)
        assert.deepStrictEqual(yield* memberships.pendingRemovals(999, 10), [])
        assert.deepStrictEqual(
          (yield* memberships.pendingRemovals(1_000, 10)).map((m) => m.user_nanoid),
          [userId(1)]
        )
        yield* memberships.markRemoval(t, userId(2), 2_000)
        assert.deepStrictEqual(
          (yield* memberships.pendingRemovals(10_000, 1)).map((m) => m.user_nanoid),
          [userId(1)]
        )
        // Cleared (the chain refused): a member as before; removed: nothing pending.
        yield* memberships.clearRemoval(t, userId(1))
        assert.isUndefined(Option.getOrThrow(yield* memberships.find(t, userId(1))).removal_since)
        assert.isTrue(yield* memberships.remove(t, userId(2)))
        assert.deepStrictEqual(yield* memberships.pendingRemovals(10_000, 10), [])
      }).pipe(Effect.provide(storage.layer()))
    )
  })
