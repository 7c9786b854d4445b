/**
 * Checks that a signature over a 32-byte hash was made by an expected signer.
 *
 * Both EIP-712 requests and SIWE messages reduce to a hash, so one port serves both. The default layer recovers the
 * ECDSA signer (externally owned accounts). An adapter that can read the chain provides a layer that also accepts
 * ERC-1271 contract wallets and ERC-6492 counterfactual wallets, typically through viem's `verifyHash`.
 */
import { Context, Effect, Layer } from "effect"
import { type Hex, isAddressEqual, recoverAddress } from "viem"
import type { Address, Bytes32 } from "../Evm.ts"

/** What to verify: the expected signer, the signed hash and the signature bytes. */
export interface VerifyHashParameters {
  readonly signer: Address
  readonly hash: Bytes32
  readonly signature: Hex
}

/**
 * Signature verification. Implementations must answer `true` only when `signer` authorised `hash` with `signature`,
 * answer `false` (never fail) for a malformed or foreign signature, and treat infrastructure failures as defects.
 */
export class SignatureVerifier extends Context.Service<
  SignatureVerifier,
  { readonly verifyHash: (parameters: VerifyHashParameters) => Effect.Effect<boolean> }
>()("@svc/domain/signature/SignatureVerifier") {
  /** Externally owned accounts: recover the ECDSA signer of a 65-byte signature and compare addresses. */
  static readonly layer = Layer.succeed(SignatureVerifier, {
    verifyHash: ({ hash, signature, signer }) =>
      recoverSigner(hash, signature).pipe(
        Effect.map((recovered) => recovered !== undefined && isAddressEqual(recovered, signer))
      )
  })
}

/** Half the secp256k1 group order: a larger `s` is the malleable twin of a valid signature (EIP-2). */
const halfOrder = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

/** A canonical 65-byte signature's parts: `r`, `s` (low) and the recovery bit (0 or 1). */
export interface CanonicalSignature {
  readonly r: bigint
  readonly s: bigint
  readonly recovery: 0 | 1
}

/**
 * The parts of a canonical 65-byte signature, exactly what the on-chain forwarder accepts: `s` in the lower half of
 * the curve order and `v` in {0, 1, 27, 28}; `undefined` for anything else.
 */
export const canonicalSignature = (signature: Hex): CanonicalSignature | undefined => {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) return undefined
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130, 132), 16)
  if (s > halfOrder || ![0, 1, 27, 28].includes(v)) return undefined
  return { r: BigInt(signature.slice(0, 66)), s, recovery: (v % 27) as 0 | 1 }
}

/**
 * The address that signed `hash`, or `undefined` unless the bytes are a canonical 65-byte signature
 * (`canonicalSignature`).
 */
export const recoverSigner = (hash: Bytes32, signature: Hex): Effect.Effect<Address | undefined> =>
  canonicalSignature(signature) === undefined
    ? Effect.succeed(undefined)
    : Effect.tryPromise(() => recoverAddress({ hash, signature })).pipe(Effect.orElseSucceed(() => undefined))
