import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { consumeNonce, NonceStore } from "./NonceStore.ts"

const wallet = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266" as const
const other = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8" as const

describe("NonceStore.layerMemory", () => {
  it.effect("a nonce is consumed once, and only before it expires", () =>
    Effect.gen(function* () {
      const store = yield* NonceStore
      yield* store.issue({ nonce: "a", wallet, expiresAt: 1000 })
      yield* store.issue({ nonce: "b", wallet, expiresAt: 1000 })
      // Another wallet's attempt fails and leaves the nonce to its owner.
      assert.strictEqual((yield* Effect.flip(consumeNonce("a", other)))._tag, "NonceNotFound")
      const record = yield* consumeNonce("a", wallet.toLowerCase() as typeof wallet)
      assert.strictEqual(record.wallet, wallet)
      assert.strictEqual((yield* Effect.flip(consumeNonce("a", wallet)))._tag, "NonceNotFound")
      yield* TestClock.setTime(1000)
      const expired = yield* Effect.flip(consumeNonce("b", wallet))
      assert.strictEqual(expired._tag, "NonceExpired")
      assert.strictEqual(expired.errorCode, "EXPIRED_NONCE")
      assert.strictEqual((yield* Effect.flip(consumeNonce("never", wallet))).errorCode, "EXPIRED_NONCE")
    }).pipe(Effect.provide(NonceStore.layerMemory))
  )
})
