import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "@svc/domain/Ids"
import { Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { AccessTokens, signedInAt, tokenLifetimeSeconds } from "./AccessTokens.ts"

const user = { sub: "us-abcdefghijkl" as UserId, wallet: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8" }
const layer = AccessTokens.make(Redacted.make("test-secret-0123456789abcdef0123456789abcdef"))

describe("AccessTokens", () => {
  it.effect("a known token still expires, and an altered copy of it is still refused", () =>
    Effect.gen(function* () {
      const tokens = yield* AccessTokens
      const token = yield* tokens.issue(user)
      const first = yield* tokens.verify(token)
      assert.strictEqual(first.sub, user.sub)
      // Known now: the same answer.
      assert.deepStrictEqual(yield* tokens.verify(token), first)
      // The signature's second-to-last character carries six whole bits (the last one only two), so changing it
      // always changes the signature.
      const altered = `${token.slice(0, -2)}${token.at(-2) === "A" ? "B" : "A"}${token.slice(-1)}`
      assert.strictEqual((yield* Effect.flip(tokens.verify(altered))).reason, "invalid")
      // Past its expiry and the minute of clock skew, the known token is refused as expired.
      yield* TestClock.adjust(`${tokenLifetimeSeconds + 61} seconds`)
      assert.strictEqual((yield* Effect.flip(tokens.verify(token))).reason, "expired")
    }).pipe(Effect.provide(layer))
  )

  it.effect(
    "a session is renewed with its user, wallet and sign-in time for 7 days after its sign-in, then refused",
    () =>
      Effect.gen(function* () {
        const tokens = yield* AccessTokens
        let token = yield* tokens.issue(user)
        const signedIn = signedInAt(yield* tokens.verify(token))
        // Renewed each 23 hours: each new token lives 24 hours from its renewal and keeps the sign-in time.
        for (let renewal = 1; renewal <= 7; renewal++) {
          yield* TestClock.adjust("23 hours")
          token = yield* tokens.renew(token)
          const claims = yield* tokens.verify(token)
          assert.strictEqual(claims.sub, user.sub)
          assert.strictEqual(claims.wallet, user.wallet)
          assert.strictEqual(signedInAt(claims), signedIn)
          assert.strictEqual(claims.exp - claims.iat, tokenLifetimeSeconds)
        }
        // 8 × 23 hours after the sign-in: past the 7 days, though the token itself is still valid.
        yield* TestClock.adjust("23 hours")
        yield* tokens.verify(token)
        assert.strictEqual((yield* Effect.flip(tokens.renew(token)))._tag, "SessionTooOld")
      }).pipe(Effect.provide(layer))
  )

  it.effect("an expired or altered token is not renewed", () =>
    Effect.gen(function* () {
      const tokens = yield* AccessTokens
      const token = yield* tokens.issue(user)
      const altered = `${token.slice(0, -2)}${token.at(-2) === "A" ? "B" : "A"}${token.slice(-1)}`
      const refusedAltered = yield* Effect.flip(tokens.renew(altered))
      assert.isTrue(refusedAltered._tag === "TokenRefused" && refusedAltered.reason === "invalid")
      yield* TestClock.adjust(`${tokenLifetimeSeconds + 61} seconds`)
      const refusedExpired = yield* Effect.flip(tokens.renew(token))
      assert.isTrue(refusedExpired._tag === "TokenRefused" && refusedExpired.reason === "expired")
    }).pipe(Effect.provide(layer))
  )
})
