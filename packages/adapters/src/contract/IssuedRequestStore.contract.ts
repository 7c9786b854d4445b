/**
 * The contract of `IssuedRequestStore`: what was issued is found as issued; a salt is claimed once among any number
 * of concurrent claimers, under a fencing token larger than every earlier one (decision 0090); only the current token
 * renews or releases the claim; a lapsed claim is taken over by one taker, and an executed request reopened, each under
 * a new token; a team's unexecuted, unexpired requests stay within a budget even when issued concurrently; expired
 * unexecuted requests are removed.
 */
import { assert, describe, it } from "@effect/vitest"
import { IssuedRequestStore, type IssuedTypedData, storedBytesOf } from "@svc/domain/eip712"
import type { FencingToken } from "@svc/domain/Lease"
import { PaymentLedger } from "@svc/domain/payment"
import { Effect, Exit, Option } from "effect"
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

/** Claims `salt` at `at`, for 20 s, with signature `0xsig<salt>`. */
const claimAt = (salt: string, at: number) =>
  IssuedRequestStore.use((store) => store.claim(salt, { now: at, until: at + 20_000, signature: `0xsig${salt}` }))

/** Registers the suite for `storage`. */
export const issuedTypedDataStoreContract = (storage: StorageUnderTest) =>
  describe(`IssuedRequestStore (${storage.name})`, () => {
    it.live("found as issued, then with its execution time once claimed; unknown salts are not found", () =>
      Effect.gen(function* () {
        const store = yield* IssuedRequestStore
        yield* store.issue(issued("5"))
        assert.deepStrictEqual(yield* store.find("5"), issued("5"))
        const claimed = yield* claimAt("5", 1_700_000_000_000)
        assert.deepStrictEqual(claimed, {
          ...issued("5"),
          claimedAt: 1_700_000_000_000,
          claim: { token: claimed.claim.token, until: 1_700_000_020_000, claimedAt: 1_700_000_000_000 },
          signature: "0xsig5"
        })
        assert.isAbove(claimed.claim.token, 0)
        assert.deepStrictEqual(yield* store.find("5"), { ...issued("5"), claimedAt: 1_700_000_000_000 })
        assert.strictEqual((yield* Effect.flip(store.find("6")))._tag, "TypedDataNotFound")
        const unknown = yield* Effect.flip(claimAt("6", 1))
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
            Array.from({ length: 10 }, () => Effect.exit(claimAt(salt, Date.now()))),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(claims.filter(Exit.isSuccess).length, 1, `round ${round}`)
        }
        const late = yield* Effect.flip(claimAt("1000", Date.now()))
        assert.deepStrictEqual([late._tag, late.errorCode], ["AlreadyClaimed", "ALREADY_EXECUTED"])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "a claim released by its holder can be claimed again, under a larger token; another token releases nothing",
      () =>
        Effect.gen(function* () {
          const store = yield* IssuedRequestStore
          yield* store.issue(issued("42"))
          const first = yield* claimAt("42", 1000)
          assert.isFalse(yield* store.release("42", (first.claim.token + 1) as FencingToken))
          assert.strictEqual((yield* Effect.flip(claimAt("42", 1001)))._tag, "AlreadyClaimed")
          assert.isTrue(yield* store.release("42", first.claim.token))
          assert.deepStrictEqual(yield* store.find("42"), issued("42"))
          const second = yield* claimAt("42", 1002)
          assert.isAbove(second.claim.token, first.claim.token)
          assert.strictEqual(second.claim.claimedAt, 1002)
          // The first token, released, can neither release nor renew the second claim.
          assert.isFalse(yield* store.release("42", first.claim.token))
          assert.isTrue(Option.isNone(yield* store.renew("42", first.claim.token, 999_999)))
          assert.strictEqual((yield* Effect.flip(claimAt("42", 1003)))._tag, "AlreadyClaimed")
        }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "the holder renews its claim with its token, so it is not abandoned; once lapsed, one taker of many takes it over",
      () =>
        Effect.gen(function* () {
          const store = yield* IssuedRequestStore
          yield* store.issue(issued("50"))
          const first = yield* claimAt("50", 10_000)
          // Held: not abandoned, not taken over.
          assert.deepStrictEqual(yield* store.abandoned(29_999, 10), [])
          assert.isTrue(Option.isNone(yield* store.takeOver("50", 29_999, 49_999)))
          // Renewed by its token to 40 s: still its own at 35 s.
          assert.deepStrictEqual(
            yield* store.renew("50", first.claim.token, 40_000),
            Option.some({ token: first.claim.token, until: 40_000 })
          )
          assert.deepStrictEqual(yield* store.abandoned(35_000, 10), [])
          // Lapsed at 40 s: abandoned, and of five takers exactly one takes it, under a larger token, its claim time
          // and signature kept.
          const [abandoned, ...none] = yield* store.abandoned(40_000, 10)
          assert.deepStrictEqual(none, [])
          assert.deepStrictEqual([abandoned?.salt, abandoned?.issued.salt], ["50", "50"])
          const takers = yield* Effect.all(
            Array.from({ length: 5 }, () => store.takeOver("50", 40_000, 60_000)),
            { concurrency: "unbounded" }
          )
          const taken = takers.filter(Option.isSome).map((taker) => taker.value)
          assert.strictEqual(taken.length, 1)
          assert.isAbove(taken[0]?.claim.token ?? 0, first.claim.token)
          assert.deepStrictEqual(
            [taken[0]?.claim.claimedAt, taken[0]?.claim.until, taken[0]?.signature],
            [10_000, 60_000, "0xsig50"]
          )
          // The first holder, paused past its lease, finds out from the store: it renews nothing, releases nothing.
          assert.isTrue(Option.isNone(yield* store.renew("50", first.claim.token, 100_000)))
          assert.isFalse(yield* store.release("50", first.claim.token))
          assert.deepStrictEqual(yield* store.abandoned(59_999, 10), [])
          // An unknown salt, or one only issued, is taken by no one.
          yield* store.issue(issued("51"))
          assert.isTrue(Option.isNone(yield* store.takeOver("51", 90_000, 100_000)))
          assert.isTrue(Option.isNone(yield* store.takeOver("52", 90_000, 100_000)))
        }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "an executed request is reopened under a larger token, its result in flight; nothing else is reopened",
      () =>
        Effect.gen(function* () {
          const store = yield* IssuedRequestStore
          const ledger = yield* PaymentLedger
          yield* store.issue(issued("60"))
          // Neither issued nor executing is reopened.
          assert.isTrue(Option.isNone(yield* store.reopen("60", 1_000, 2_000)))
          const claimed = yield* claimAt("60", 1_000)
          assert.isTrue(Option.isNone(yield* store.reopen("60", 1_000, 2_000)))
          const result = { transaction: "0xlost", payments: [] }
          assert.isTrue(yield* ledger.recordExecution({ salt: "60", token: claimed.claim.token, result, payments: [] }))
          const reopened = Option.getOrThrow(yield* store.reopen("60", 5_000, 25_000))
          assert.isTrue(reopened.reopened)
          assert.isAbove(reopened.claim.token, claimed.claim.token)
          assert.deepStrictEqual([reopened.claim.claimedAt, reopened.signature], [1_000, "0xsig60"])
          assert.deepStrictEqual(yield* ledger.outcome("60"), {
            state: "executing",
            leaseUntil: 25_000,
            inFlight: result
          })
          // The holder of the executed claim before it records nothing over the reopened one.
          assert.isFalse(
            yield* ledger.recordExecution({ salt: "60", token: claimed.claim.token, result, payments: [] })
          )
          assert.isTrue(Option.isNone(yield* store.reopen("60", 5_000, 25_000)))
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
          yield* claimAt("101", now)
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
          yield* claimAt("304", 50_000)
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
