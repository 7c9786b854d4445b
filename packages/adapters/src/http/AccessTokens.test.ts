import { assert, describe, it } from "@effect/vitest"
import type { UserId } from "@svc/domain/Ids"
import { Effect, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { AccessTokens, tokenLifetimeSeconds } from "./AccessTokens.ts"

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
})
