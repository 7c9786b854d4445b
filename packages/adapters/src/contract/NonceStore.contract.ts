/**
 * The contract of `NonceStore`: a nonce is spent once, by its own wallet (any letter case), only before it expires,
 * and answers the hash of the message it was issued with; of concurrent attempts one wins.
 */
import { assert, describe, it } from "@effect/vitest"
import { consumeNonce, NonceStore } from "@svc/domain/auth"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { wallet } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** The hash of a message issued with a nonce (any 32 bytes: the store keeps it as given). */
const messageHash = `0x${"ab".repeat(32)}`

const upper = (address: `0x${string}`) => `0x${address.slice(2).toUpperCase()}` as `0x${string}`

/** Registers the suite for `storage`. */
export const nonceStoreContract = (storage: StorageUnderTest) =>
  describe(`NonceStore (${storage.name})`, () => {
    it.live("consumed once, with its svcid, by its wallet only, never after expiry", () =>
      Effect.gen(function* () {
        const nonces = yield* NonceStore
        const now = 1_000_000
        const address = wallet(7)
        yield* nonces.issue({ nonce: "n1", wallet: address, expiresAt: now + 300_000, messageHash, svcid: "svc-1" })
        // Another wallet's attempt changes nothing: the nonce stays its owner's.
        assert.strictEqual((yield* Effect.flip(nonces.consume("n1", wallet(8), now)))._tag, "NonceNotFound")
        assert.deepStrictEqual(yield* nonces.consume("n1", upper(address), now), {
          nonce: "n1",
          wallet: address,
          expiresAt: now + 300_000,
          messageHash,
          svcid: "svc-1"
        })
        assert.strictEqual((yield* Effect.flip(nonces.consume("n1", address, now)))._tag, "NonceNotFound")
        yield* nonces.issue({ nonce: "n2", wallet: upper(address), expiresAt: now, messageHash })
        const expired = yield* Effect.flip(nonces.consume("n2", address, now))
        assert.deepStrictEqual([expired._tag, expired.errorCode], ["NonceExpired", "EXPIRED_NONCE"])
        // An expired nonce is spent too: it never succeeds later.
        assert.strictEqual((yield* Effect.flip(nonces.consume("n2", address, now - 1)))._tag, "NonceNotFound")
        const never = yield* Effect.flip(nonces.consume("never-issued", address, now))
        assert.deepStrictEqual([never._tag, never.errorCode], ["NonceNotFound", "EXPIRED_NONCE"])
        yield* nonces.issue({ nonce: "n3", wallet: address, expiresAt: now + 1, messageHash: "" })
        assert.deepStrictEqual(yield* nonces.consume("n3", address, now), {
          nonce: "n3",
          wallet: address,
          expiresAt: now + 1,
          messageHash: ""
        })
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("of ten concurrent verifications of one nonce exactly one succeeds (20 rounds)", () =>
      Effect.gen(function* () {
        const nonces = yield* NonceStore
        const now = 1_000_000
        for (let round = 0; round < 20; round++) {
          yield* nonces.issue({ nonce: `race-${round}`, wallet: wallet(7), expiresAt: now + 300_000, messageHash })
          const race = yield* Effect.all(
            Array.from({ length: 10 }, () => Effect.exit(nonces.consume(`race-${round}`, wallet(7), now))),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(race.filter(Exit.isSuccess).length, 1, `round ${round}`)
        }
      }).pipe(Effect.provide(storage.layer()))
    )

    it.effect("consumeNonce spends a nonce at the Clock's time", () =>
      Effect.gen(function* () {
        const nonces = yield* NonceStore
        yield* nonces.issue({ nonce: "a", wallet: wallet(1), expiresAt: 1000, messageHash })
        yield* nonces.issue({ nonce: "b", wallet: wallet(1), expiresAt: 1000, messageHash })
        assert.strictEqual((yield* consumeNonce("a", upper(wallet(1)))).nonce, "a")
        yield* TestClock.setTime(1000)
        assert.strictEqual((yield* Effect.flip(consumeNonce("b", wallet(1))))._tag, "NonceExpired")
      }).pipe(Effect.provide(storage.layer()))
    )
  })
