import { assert, describe, it } from "@effect/vitest"
import { canonicalSignature, SignatureVerifier } from "@svc/domain/signature"
import { Effect } from "effect"
import { type Hex, keccak256, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { SignerKeys } from "./index.ts"

const { precomputed, signsFor } = SignerKeys

const order = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const hashOf = (n: number) => keccak256(toHex(`svc ${n}`))
const word = (value: bigint) => value.toString(16).padStart(64, "0")

/** The signature with its recovery bit flipped (the point `-R`: recovery yields another key). */
const otherBit = (signature: Hex): Hex => `${signature.slice(0, 130)}${signature.endsWith("1b") ? "1c" : "1b"}` as Hex
/** The malleable twin: `s` mirrored to the upper half, `v` flipped (recovery still yields the signer). */
const twin = (signature: Hex): Hex =>
  `${signature.slice(0, 66)}${word(order - BigInt(`0x${signature.slice(66, 130)}`))}${signature.endsWith("1b") ? "1c" : "1b"}` as Hex

describe("SignerKeys (externally owned accounts, keys kept)", () => {
  it.effect("the check against a kept key agrees with recovery on valid and altered signatures", () =>
    Effect.gen(function* () {
      const account = privateKeyToAccount(generatePrivateKey())
      const other = privateKeyToAccount(generatePrivateKey())
      const point = precomputed(account.publicKey)
      const recovery = yield* SignatureVerifier.pipe(Effect.provide(SignatureVerifier.layer))
      for (let n = 0; n < 12; n++) {
        const hash = hashOf(n)
        const signature = yield* Effect.promise(() => account.sign({ hash }))
        const foreign = yield* Effect.promise(() => other.sign({ hash }))
        const cases: ReadonlyArray<readonly [Hex, Hex]> = [
          [hash, signature],
          [hashOf(n + 100), signature],
          [hash, otherBit(signature)],
          [hash, foreign],
          [
            hash,
            `${signature.slice(0, 66)}${word(BigInt(`0x${signature.slice(66, 130)}`) + 1n)}${signature.slice(130)}` as Hex
          ],
          [hash, `0x${word(0n)}${signature.slice(66)}` as Hex],
          [hash, `0x${word(order)}${signature.slice(66)}` as Hex]
        ]
        for (const [signed, bytes] of cases) {
          const parts = canonicalSignature(bytes)
          const byRecovery = yield* recovery.verifyHash({ signer: account.address, hash: signed, signature: bytes })
          assert.strictEqual(parts !== undefined && signsFor(point, signed, parts), byRecovery, `${n}: ${bytes}`)
        }
        assert.isTrue(signsFor(point, hash, canonicalSignature(signature) ?? { r: 0n, s: 0n, recovery: 0 }))
      }
    })
  )

  it.effect("a signer's later signatures pass, and what recovery refuses stays refused once the key is kept", () =>
    Effect.gen(function* () {
      const verifier = yield* SignatureVerifier
      const account = privateKeyToAccount(generatePrivateKey())
      const other = privateKeyToAccount(generatePrivateKey())
      // The first two signatures keep the key; the rest are checked against it.
      for (let n = 0; n < 6; n++) {
        const hash = hashOf(n)
        const signature = yield* Effect.promise(() => account.sign({ hash }))
        assert.isTrue(yield* verifier.verifyHash({ signer: account.address, hash, signature }), `signature ${n}`)
        const refused: ReadonlyArray<readonly [Hex, Hex]> = [
          [hashOf(n + 100), signature],
          [hash, otherBit(signature)],
          [hash, twin(signature)],
          [hash, yield* Effect.promise(() => other.sign({ hash }))],
          [hash, `${signature}00` as Hex]
        ]
        for (const [signed, bytes] of refused) {
          assert.isFalse(yield* verifier.verifyHash({ signer: account.address, hash: signed, signature: bytes }), bytes)
        }
        // Another signer's own signature is still accepted for that signer.
        const foreign = yield* Effect.promise(() => other.sign({ hash }))
        assert.isTrue(yield* verifier.verifyHash({ signer: other.address, hash, signature: foreign }))
      }
    }).pipe(Effect.provide(SignerKeys.layer))
  )
})
