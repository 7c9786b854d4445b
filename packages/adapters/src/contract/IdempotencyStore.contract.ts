/**
 * The contract of `IdempotencyStore`: one claim of a key at a time, replays of the kept answer, refusals of another
 * body, lapses after the lease and after retention, and holders whose claim was taken over changing nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { type ClaimResult, IdempotencyStore, leaseMillis, retentionMillis } from "@svc/domain/idempotency"
import { Effect } from "effect"
import type { StorageUnderTest } from "./Storage.ts"

const tokenOf = (claim: ClaimResult) => {
  if (claim._tag !== "Claimed") throw new Error(`expected a claim, got ${claim._tag}`)
  return claim.token
}

const answer = (body: string) => ({ status: 200, body, contentType: "text/plain" })

/** Registers the suite for `storage`. */
export const idempotencyStoreContract = (storage: StorageUnderTest) =>
  describe(`IdempotencyStore (${storage.name})`, () => {
    it.live("claim, running, mismatch, replay, lapse after retention, release, keys per scope", () =>
      Effect.gen(function* () {
        const store = yield* IdempotencyStore
        const key = { scope: "us-1", key: "k1" }
        const now = 1_000_000
        const first = yield* store.claim(key, "h1", now)
        assert.strictEqual(first._tag, "Claimed")
        assert.strictEqual((yield* store.claim(key, "h1", now + 1))._tag, "Running")
        assert.strictEqual((yield* store.claim(key, "h2", now + 1))._tag, "Mismatch")
        // Another caller's identical key is its own.
        assert.strictEqual((yield* store.claim({ scope: "us-2", key: "k1" }, "h2", now + 1))._tag, "Claimed")
        const response = { status: 201, body: "{}", contentType: "application/json" }
        yield* store.complete(key, tokenOf(first), response, now + 2)
        assert.deepStrictEqual(yield* store.claim(key, "h1", now + 3), { _tag: "Completed", response })
        assert.strictEqual((yield* store.claim(key, "h2", now + 3))._tag, "Mismatch")
        assert.deepStrictEqual(yield* store.claim(key, "h1", now + 2 + retentionMillis - 1), {
          _tag: "Completed",
          response
        })
        // Once its retention has passed, the key is new again, whatever the body.
        assert.strictEqual((yield* store.claim(key, "h2", now + 2 + retentionMillis))._tag, "Claimed")

        const other = { scope: "us-1", key: "k2" }
        const otherClaim = yield* store.claim(other, "h", now)
        yield* store.release(other, tokenOf(otherClaim))
        const retried = yield* store.claim(other, "h2", now + 1)
        assert.strictEqual(retried._tag, "Claimed")
        assert.notStrictEqual(tokenOf(retried), tokenOf(otherClaim))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("of concurrent claims of a fresh key exactly one wins (10 rounds)", () =>
      Effect.gen(function* () {
        const store = yield* IdempotencyStore
        for (let round = 0; round < 10; round++) {
          const claims = yield* Effect.all(
            Array.from({ length: 10 }, () => store.claim({ scope: "us-2", key: `race-${round}` }, "h", 1_000_000)),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(claims.filter((r) => r._tag === "Claimed").length, 1, JSON.stringify(claims))
          assert.isTrue(claims.every((c) => c._tag === "Claimed" || c._tag === "Running"))
        }
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "the lease outlasts the slowest request; after it lapses one retry takes over; a stale holder changes nothing",
      () =>
        Effect.gen(function* () {
          const store = yield* IdempotencyStore
          const key = { scope: "us-1", key: "slow" }
          const now = 1_000_000
          const stale = yield* store.claim(key, "h", now)
          // PUT /v2/payments may take 120 s for a receipt plus 30 s waiting for another replica.
          assert.strictEqual((yield* store.claim(key, "h", now + 150_000))._tag, "Running")

          // The lease lapses (the holder hangs); a retry takes the key over with a claim of its own.
          const lapsed = now + leaseMillis
          const retry = yield* store.claim(key, "h", lapsed)
          assert.strictEqual(retry._tag, "Claimed")
          assert.notStrictEqual(tokenOf(retry), tokenOf(stale))
          // The first holder finishing late neither stores its answer nor frees the retry's key.
          yield* store.complete(key, tokenOf(stale), answer("stale"), lapsed + 1)
          yield* store.release(key, tokenOf(stale))
          assert.strictEqual((yield* store.claim(key, "h", lapsed + 2))._tag, "Running")
          yield* store.complete(key, tokenOf(retry), answer("retry"), lapsed + 3)
          yield* store.complete(key, tokenOf(stale), answer("stale"), lapsed + 4)
          yield* store.release(key, tokenOf(stale))
          // Completed, the holder's own release frees nothing either.
          yield* store.release(key, tokenOf(retry))
          assert.deepStrictEqual(yield* store.claim(key, "h", lapsed + 5), {
            _tag: "Completed",
            response: answer("retry")
          })

          // Concurrent retries of a lapsed claim: exactly one takes it over.
          for (let round = 0; round < 5; round++) {
            const raced = { scope: "us-2", key: `lapsed-${round}` }
            const holder = yield* store.claim(raced, "h", now)
            const claims = yield* Effect.all(
              Array.from({ length: 8 }, () => store.claim(raced, "h", now + leaseMillis + 1)),
              { concurrency: "unbounded" }
            )
            const won = claims.filter((c) => c._tag === "Claimed")
            assert.strictEqual(won.length, 1, `round ${round}: ${JSON.stringify(claims)}`)
            assert.notStrictEqual(tokenOf(won[0] as ClaimResult), tokenOf(holder))
            assert.isTrue(claims.every((c) => c._tag === "Claimed" || c._tag === "Running"))
          }
        }).pipe(Effect.provide(storage.layer()))
    )
  })
