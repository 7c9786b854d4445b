import { createHash } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { Randomness } from "../Randomness.ts"
import { hashInviteToken, makeInviteToken } from "./InviteToken.ts"

describe("invite tokens", () => {
  it("are stored as the sha256 of the token's text, as node:crypto computes it", () => {
    const token = "ab".repeat(32)
    assert.strictEqual(hashInviteToken(token), createHash("sha256").update(token).digest("hex"))
    assert.strictEqual(hashInviteToken("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  it.effect("carry 256 random bits, and each new one differs", () =>
    Effect.gen(function* () {
      const first = yield* makeInviteToken
      const second = yield* makeInviteToken
      assert.match(first.token, /^[0-9a-f]{64}$/)
      assert.notStrictEqual(first.token, second.token)
      assert.strictEqual(first.hash, hashInviteToken(first.token))
      assert.notStrictEqual(first.hash, first.token)
    }).pipe(Effect.provide(Randomness.layer))
  )
})
