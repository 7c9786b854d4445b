/**
 * The contract of `IssuedTypedDataStore`: what was issued is found as issued; a salt is claimed once among any number
 * of concurrent claimers, under a fresh token; only that token releases the claim.
 */
import { assert, describe, it } from "@effect/vitest"
import { IssuedTypedDataStore } from "@svc/domain/eip712"
import { Effect, Exit } from "effect"
import { issued } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** Registers the suite for `storage`. */
export const issuedTypedDataStoreContract = (storage: StorageUnderTest) =>
  describe(`IssuedTypedDataStore (${storage.name})`, () => {
    it.live("found as issued, then with its execution time once claimed; unknown salts are not found", () =>
      Effect.gen(function* () {
        const store = yield* IssuedTypedDataStore
        yield* store.issue(issued("5"))
        assert.deepStrictEqual(yield* store.find("5"), issued("5"))
        const claimed = yield* store.claim("5", 1_700_000_000_000)
        assert.deepStrictEqual(claimed, {
          ...issued("5"),
          executedAt: 1_700_000_000_000,
          claimToken: claimed.claimToken
        })
        assert.deepStrictEqual(yield* store.find("5"), { ...issued("5"), executedAt: 1_700_000_000_000 })
        assert.strictEqual((yield* Effect.flip(store.find("6")))._tag, "TypedDataNotFound")
        const unknown = yield* Effect.flip(store.claim("6", 1))
        assert.deepStrictEqual([unknown._tag, unknown.errorCode], ["TypedDataNotFound", "TYPED_DATA_NOT_FOUND"])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("of ten concurrent claims of one salt exactly one wins (20 rounds); later claims are AlreadyExecuted", () =>
      Effect.gen(function* () {
        const store = yield* IssuedTypedDataStore
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
        assert.deepStrictEqual([late._tag, late.errorCode], ["AlreadyExecuted", "ALREADY_EXECUTED"])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "a claim released by its holder can be claimed again, under a new token; another token releases nothing",
      () =>
        Effect.gen(function* () {
          const store = yield* IssuedTypedDataStore
          yield* store.issue(issued("42"))
          const first = yield* store.claim("42", 1000)
          yield* store.release("42", "not-the-holder")
          assert.strictEqual((yield* Effect.flip(store.claim("42", 1001)))._tag, "AlreadyExecuted")
          yield* store.release("42", first.claimToken)
          assert.deepStrictEqual(yield* store.find("42"), issued("42"))
          const second = yield* store.claim("42", 1002)
          assert.notStrictEqual(second.claimToken, first.claimToken)
          assert.strictEqual(second.executedAt, 1002)
          // The first token, released, cannot release the second claim.
          yield* store.release("42", first.claimToken)
          assert.strictEqual((yield* Effect.flip(store.claim("42", 1003)))._tag, "AlreadyExecuted")
        }).pipe(Effect.provide(storage.layer()))
    )
  })
