/**
 * The contract of `IssuedRequestStore`: what was issued is found as issued; a salt is claimed once among any number
 * of concurrent claimers, under a fresh token; only that token releases the claim; a team's unexecuted, unexpired
 * requests stay within a budget even when issued concurrently; expired unexecuted requests are removed.
 */
import { assert, describe, it } from "@effect/vitest"
import { IssuedRequestStore, type IssuedTypedData, storedBytesOf } from "@svc/domain/eip712"
import { Effect, Exit } from "effect"
import { issued, teamId } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** `record` with its typed data expiring at `expires` (unix seconds). */
const expiring = (record: IssuedTypedData, expires: number): IssuedTypedData =>
  ({
    ...record,
    bundle: { ...record.bundle, typed_data: { ...record.bundle.typed_data, expires: String(expires) } }
  }) as IssuedTypedData

/** 2026-01-01T00:00:00Z in epoch ms, the budgets' `now`. */
const now = 1_767_225_600_000
const nowSeconds = now / 1000

/** Registers the suite for `storage`. */
export const issuedTypedDataStoreContract = (storage: StorageUnderTest) =>
  describe(`IssuedRequestStore (${storage.name})`, () => {
    it.live("found as issued, then with its execution time once claimed; unknown salts are not found", () =>
      Effect.gen(function* () {
        const store = yield* IssuedRequestStore
        yield* store.issue(issued("5"))
        assert.deepStrictEqual(yield* store.find("5"), issued("5"))
        const claimed = yield* store.claim("5", 1_700_000_000_000)
        assert.deepStrictEqual(claimed, {
          ...issued("5"),
          claimedAt: 1_700_000_000_000,
          claimToken: claimed.claimToken
        })
        assert.deepStrictEqual(yield* store.find("5"), { ...issued("5"), claimedAt: 1_700_000_000_000 })
        assert.strictEqual((yield* Effect.flip(store.find("6")))._tag, "TypedDataNotFound")
        const unknown = yield* Effect.flip(store.claim("6", 1))
        assert.deepStrictEqual([unknown._tag, unknown.errorCode], ["TypedDataNotFound", "TYPED_DATA_NOT_FOUND"])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("of ten concurrent claims of one salt exactly one wins (20 rounds); later claims are AlreadyClaimed", () =>
      Effect.gen(function* () {
        const store = yield* IssuedRequestStore
        // Many rounds: a racy primitive (jongodb's findOneAndUpdate) lets two claims through now and then.
        for (let round = 0; round < 20; round++) {
          const salt = String(1000 + round)
          yield* store.issue(issued(salt))
          const claims = yield* Effect.all(
            Array.from({ length: 10 }, () => Effect.exit(store.claim(salt, Date.now()))),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(claims.filter(Exit.isSuccess).length, 1, `round ${round}`)
        }
        const late = yield* Effect.flip(store.claim("1000", Date.now()))
        assert.deepStrictEqual([late._tag, late.errorCode], ["AlreadyClaimed", "ALREADY_EXECUTED"])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "a claim released by its holder can be claimed again, under a new token; another token releases nothing",
      () =>
        Effect.gen(function* () {
          const store = yield* IssuedRequestStore
          yield* store.issue(issued("42"))
          const first = yield* store.claim("42", 1000)
          yield* store.release("42", "not-the-holder")
          assert.strictEqual((yield* Effect.flip(store.claim("42", 1001)))._tag, "AlreadyClaimed")
          yield* store.release("42", first.claimToken)
          assert.deepStrictEqual(yield* store.find("42"), issued("42"))
          const second = yield* store.claim("42", 1002)
          assert.notStrictEqual(second.claimToken, first.claimToken)
          assert.strictEqual(second.claimedAt, 1002)
          // The first token, released, cannot release the second claim.
          yield* store.release("42", first.claimToken)
          assert.strictEqual((yield* Effect.flip(store.claim("42", 1003)))._tag, "AlreadyClaimed")
        }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "a team's unexecuted, unexpired requests stay within its count; expired and claimed ones do not count",
      () =>
        Effect.gen(function* () {
          const store = yield* IssuedRequestStore
          const budget = { maxBytes: 1_000_000, maxCount: 2, now }
          yield* store.issueWithin(issued("101"), budget)
          yield* store.issueWithin(expiring(issued("100"), nowSeconds), { ...budget, now: now - 60_000 })
          yield* store.issueWithin(issued("102"), budget)
          const refused = yield* Effect.flip(store.issueWithin(issued("103"), budget))
          assert.deepStrictEqual([refused._tag, refused.errorCode], ["IssuedRequestsLimit", "ISSUED_REQUESTS_LIMIT"])
          assert.strictEqual((yield* Effect.flip(store.find("103")))._tag, "TypedDataNotFound")
          // Another team has a budget of its own.
          yield* store.issueWithin(issued("104", teamId(2)), budget)
          // A claimed request is being executed: it frees its place.
          yield* store.claim("101", now)
          yield* store.issueWithin(issued("103"), budget)
          assert.deepStrictEqual(yield* store.find("103"), issued("103"))
        }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a team's unexecuted requests stay within its stored bytes", () =>
      Effect.gen(function* () {
        const store = yield* IssuedRequestStore
        const size = storedBytesOf(issued("201"))
        const budget = { maxBytes: 2 * size + size / 2, maxCount: 100, now }
        yield* store.issueWithin(issued("201"), budget)
        yield* store.issueWithin(issued("202"), budget)
        assert.strictEqual((yield* Effect.flip(store.issueWithin(issued("203"), budget)))._tag, "IssuedRequestsLimit")
        yield* store.issueWithin(issued("203"), { ...budget, maxBytes: 3 * size })
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("of twenty concurrent issues against a budget of five, at most five are kept, and exactly those", () =>
      Effect.gen(function* () {
        const store = yield* IssuedRequestStore
        const budget = { maxBytes: 1_000_000, maxCount: 5, now }
        const salts = Array.from({ length: 20 }, (_, index) => String(2000 + index))
        const exits = yield* Effect.all(
          salts.map((salt) => Effect.exit(store.issueWithin(issued(salt), budget))),
          { concurrency: "unbounded" }
        )
        const kept = yield* Effect.all(salts.map((salt) => Effect.exit(store.find(salt))))
        const succeeded = exits.filter(Exit.isSuccess).length
        assert.isAtMost(succeeded, 5)
        assert.strictEqual(kept.filter(Exit.isSuccess).length, succeeded)
        assert.deepStrictEqual(exits.map(Exit.isSuccess), kept.map(Exit.isSuccess))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "removeExpired deletes unexecuted requests expired by the cutoff, up to the limit, never claimed ones",
      () =>
        Effect.gen(function* () {
          const store = yield* IssuedRequestStore
          yield* store.issue(expiring(issued("301"), 100))
          yield* store.issue(expiring(issued("302"), 200))
          yield* store.issue(expiring(issued("303", teamId(2)), 250))
          yield* store.issue(expiring(issued("304"), 100))
          yield* store.issue(issued("305"))
          yield* store.claim("304", 50_000)
          assert.strictEqual(yield* store.removeExpired(150, 10), 1)
          assert.strictEqual((yield* Effect.flip(store.find("301")))._tag, "TypedDataNotFound")
          assert.strictEqual(yield* store.removeExpired(300, 1), 1)
          assert.strictEqual(yield* store.removeExpired(300, 10), 1)
          assert.strictEqual(yield* store.removeExpired(300, 10), 0)
          for (const salt of ["302", "303"]) {
            assert.strictEqual((yield* Effect.flip(store.find(salt)))._tag, "TypedDataNotFound")
          }
          assert.strictEqual((yield* store.find("304")).salt, "304")
          assert.deepStrictEqual(yield* store.find("305"), issued("305"))
        }).pipe(Effect.provide(storage.layer()))
    )
  })
