/**
 * The signature check of externally owned accounts, with the public keys of the signers who sign often kept (issue 19,
 * item 3; decision 0066). It is as strict as the domain's `SignatureVerifier.layer`: a canonical 65-byte signature
 * (low `s`, `v` in {0, 1, 27, 28}) that recovers to exactly the signer.
 *
 * - A signer's first two signatures are checked by recovery (viem's `recoverPublicKey`), as without this layer. The
 *   second one keeps the recovered key with its multiples precomputed (noble's `precompute`, a window of 4: about
 *   44 KB, 7 ms once).
 * - Later signatures are checked against that key: `R = (h/s)·G + (r/s)·Q` must be the point of the signature, with
 *   `R.x = r` and the parity of `R.y` the recovery bit. That holds exactly when recovery would give `Q` back, so it
 *   accepts what recovery accepts and nothing more. It costs about 0.7 ms instead of 2.2.
 * - A signature this check refuses is checked by recovery again, so every refusal is recovery's.
 * Keys are kept for `keptSigners` signers, the least recently used dropped first.
 */
import { invert, mod } from "@noble/curves/abstract/modular"
import { secp256k1 } from "@noble/curves/secp256k1"
import type { Address, Bytes32 } from "@svc/domain/Evm"
import { type CanonicalSignature, canonicalSignature, SignatureVerifier } from "@svc/domain/signature"
import { Effect, Layer } from "effect"
import { type Hex, isAddressEqual, recoverPublicKey } from "viem"
import { publicKeyToAddress } from "viem/accounts"

/** How many signers' keys are kept (about 44 KB each once precomputed). */
export const keptSigners = 1_000

/** A public key as noble's point. */
export type Point = ReturnType<typeof secp256k1.ProjectivePoint.fromHex>

/** A signer's key: recovered once (`point` undefined), or recovered twice and precomputed. */
interface Kept {
  readonly publicKey: Hex
  point: Point | undefined
}

const order = secp256k1.CURVE.n

/** Whether `parts` sign `hash` for the precomputed `point` (see the module comment). */
export const signsFor = (point: Point, hash: Bytes32, parts: CanonicalSignature): boolean => {
  if (parts.r === 0n || parts.r >= order || parts.s === 0n) return false
  const sInverse = invert(parts.s, order)
  const h = mod(BigInt(hash), order)
  const signed = secp256k1.ProjectivePoint.BASE.multiplyAndAddUnsafe(
    point,
    mod(h * sInverse, order),
    mod(parts.r * sInverse, order)
  )?.toAffine()
  return signed !== undefined && signed.x === parts.r && (signed.y & 1n) === BigInt(parts.recovery)
}

/** The public key that signed `hash`, by recovery; `undefined` for a signature that recovers to nothing. */
const recovered = (hash: Bytes32, signature: Hex) =>
  Effect.tryPromise(() => recoverPublicKey({ hash, signature })).pipe(Effect.orElseSucceed(() => undefined))

/** `publicKey` (uncompressed, `0x04…`) with its multiples precomputed. */
export const precomputed = (publicKey: Hex): Point =>
  secp256k1.utils.precompute(4, secp256k1.ProjectivePoint.fromHex(publicKey.slice(2)))

/** A `SignatureVerifier` for externally owned accounts that keeps the keys of signers who sign again. */
export const makeSignerKeys = () => {
  const kept = new Map<string, Kept>()
  const remember = (signer: Address, publicKey: Hex) => {
    const key = signer.toLowerCase()
    const known = kept.get(key)
    kept.delete(key)
    if (known?.publicKey === publicKey) {
      known.point ??= precomputed(publicKey)
      kept.set(key, known)
    } else {
      kept.set(key, { publicKey, point: undefined })
    }
    if (kept.size > keptSigners) kept.delete(kept.keys().next().value as string)
  }
  return SignatureVerifier.of({
    verifyHash: ({ signer, hash, signature }) =>
      Effect.gen(function* () {
        const parts = canonicalSignature(signature)
        if (parts === undefined) return false
        const key = signer.toLowerCase()
        const known = kept.get(key)
        if (known?.point !== undefined && signsFor(known.point, hash, parts)) {
          kept.delete(key)
          kept.set(key, known)
          return true
        }
        const publicKey = yield* recovered(hash, signature)
        if (publicKey === undefined || !isAddressEqual(publicKeyToAddress(publicKey), signer)) return false
        remember(signer, publicKey)
        return true
      })
  })
}

/** The layer: one set of kept keys per server. */
export const layer = Layer.sync(SignatureVerifier, makeSignerKeys)
