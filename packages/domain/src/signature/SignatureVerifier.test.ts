import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { type Hex, hashMessage } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { recoverSigner, SignatureVerifier } from "./SignatureVerifier.ts"

const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
const order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const hash = hashMessage("svc")

/** The same signature with `s` mirrored to the upper half and `v` flipped: ecrecover still yields the signer. */
const malleate = (signature: Hex): Hex => {
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130, 132), 16)
  return `${signature.slice(0, 66)}${(order - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}` as Hex
}

describe("SignatureVerifier.layer (externally owned accounts)", () => {
  it.effect("accepts the signer's canonical signature, in either v form", () =>
    Effect.gen(function* () {
      const verifier = yield* SignatureVerifier
      const signature = yield* Effect.promise(() => account.sign({ hash }))
      assert.isTrue(yield* verifier.verifyHash({ signer: account.address, hash, signature }))
      const v = Number.parseInt(signature.slice(130), 16) - 27
      const compactV = `${signature.slice(0, 130)}0${v}` as Hex
      assert.isTrue(yield* verifier.verifyHash({ signer: account.address, hash, signature: compactV }))
    }).pipe(Effect.provide(SignatureVerifier.layer))
  )

  it.effect("refuses the malleable twin, other lengths, bad v and garbage, as the forwarder does", () =>
    Effect.gen(function* () {
      const verifier = yield* SignatureVerifier
      const signature = yield* Effect.promise(() => account.sign({ hash }))
      const twin = malleate(signature)
      for (const bad of [
        twin,
        `${signature}00`,
        signature.slice(0, 130),
        `${signature.slice(0, 130)}1d`,
        `0x${"00".repeat(65)}`,
        "0xzz"
      ] as Array<Hex>) {
        assert.isFalse(yield* verifier.verifyHash({ signer: account.address, hash, signature: bad }), bad)
      }
      assert.isUndefined(yield* recoverSigner(hash, twin))
    }).pipe(Effect.provide(SignatureVerifier.layer))
  )
})
