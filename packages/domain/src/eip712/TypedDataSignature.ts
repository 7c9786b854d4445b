/**
 * The digest of a bundle, signing it with a local key, and checking a signature, expiry and sameness.
 *
 * The digest is EIP-712's `keccak256(0x1901 || domainSeparator || hashStruct(message))`; verification goes through
 * the `SignatureVerifier` port, so ERC-1271/ERC-6492 wallets work wherever the verifier layer supports them.
 */
import { Clock, Effect } from "effect"
import { type Hex, hashTypedData, type TypedData } from "viem"
import { signTypedData } from "viem/accounts"
import type { Address, Bytes32, Signature } from "../Evm.ts"
import { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import type { TypedDataBundle } from "./TypedData.ts"
import { ExpiredTypedData, InvalidSignature, MalformedTypedData, TypedDataMismatch } from "./TypedDataError.ts"

/** The fields of a bundle that viem and ethers sign, in viem's parameter names. */
export const signableOf = (bundle: TypedDataBundle) => ({
  domain: bundle.domain,
  types: bundle.types as unknown as TypedData,
  primaryType: bundle.primary_type,
  message: bundle.typed_data as unknown as Record<string, unknown>
})

/** The digest a wallet signs; throws when the values do not fit the types (use `typedDataDigest` for a typed error). */
export const typedDataDigestUnsafe = (bundle: TypedDataBundle): Bytes32 => hashTypedData(signableOf(bundle))

/** The digest a wallet signs for the bundle. */
export const typedDataDigest = (bundle: TypedDataBundle): Effect.Effect<Bytes32, MalformedTypedData> =>
  Effect.try({
    try: () => typedDataDigestUnsafe(bundle),
    catch: (error) => new MalformedTypedData({ reason: error instanceof Error ? error.message : String(error) })
  })

/** Signs the bundle with a private key, exactly as a wallet's `eth_signTypedData_v4` would (for the CLI and tests). */
export const signTypedDataBundle = (bundle: TypedDataBundle, privateKey: Hex): Effect.Effect<Signature> =>
  Effect.promise(() => signTypedData({ ...signableOf(bundle), privateKey }))

/** A bundle, who must have signed it, and the signature. */
export interface VerifyTypedDataParameters {
  readonly bundle: TypedDataBundle
  readonly signer: Address
  readonly signature: Hex
}

/**
 * Succeeds with the digest when `signer` signed the bundle; fails with `InvalidSignature` for another key, any changed
 * field, another chain id or another verifying contract.
 *
 * @example
 * const digest = yield* verifyTypedDataSignature({ bundle, signer, signature }).pipe(Effect.provide(SignatureVerifier.layer))
 */
export const verifyTypedDataSignature = Effect.fn("TypedDataSignature.verify")(function* (
  parameters: VerifyTypedDataParameters
): Effect.fn.Return<Bytes32, InvalidSignature | MalformedTypedData, SignatureVerifier> {
  const digest = yield* typedDataDigest(parameters.bundle)
  return yield* verifyDigestSignature({ digest, signer: parameters.signer, signature: parameters.signature })
})

/** Succeeds with `digest` when `signer` signed it (EOA or contract wallet); fails with `InvalidSignature` otherwise. */
export const verifyDigestSignature = Effect.fn("TypedDataSignature.verifyDigest")(function* (parameters: {
  readonly digest: Bytes32
  readonly signer: Address
  readonly signature: Hex
}): Effect.fn.Return<Bytes32, InvalidSignature, SignatureVerifier> {
  const { digest, signer, signature } = parameters
  const valid = yield* SignatureVerifier.use((verifier) => verifier.verifyHash({ signer, hash: digest, signature }))
  if (!valid) return yield* new InvalidSignature({ signer, digest })
  return digest
})

/** Fails with `ExpiredTypedData` once the current `Clock` time reaches `expires` (unix seconds). */
export const checkTypedDataExpiry = Effect.fn("TypedDataSignature.checkExpiry")(function* (typedData: {
  readonly expires: string
}): Effect.fn.Return<void, ExpiredTypedData> {
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  if (BigInt(typedData.expires) <= BigInt(now)) return yield* new ExpiredTypedData({ expires: typedData.expires, now })
})

/**
 * Fails with `TypedDataMismatch` unless the client's `typed_data` encodes to the same struct as the one issued: the
 * server rebuilds the digest from its own record, so only the signed values matter (address case does not). Answers
 * that digest, the one the signature must sign.
 */
export const ensureSameTypedData = <B extends TypedDataBundle>(
  issued: B,
  received: unknown
): Effect.Effect<Bytes32, TypedDataMismatch> => {
  const expected = typedDataDigestUnsafe(issued)
  // A copy written exactly as issued (the usual case) encodes the same: hashed once.
  if (JSON.stringify(received) === JSON.stringify(issued.typed_data)) return Effect.succeed(expected)
  return typedDataDigest({ ...issued, typed_data: received } as B).pipe(
    Effect.mapError(() => new TypedDataMismatch({ expected, received: "malformed typed_data" })),
    Effect.flatMap((digest) =>
      digest === expected
        ? Effect.succeed(expected)
        : Effect.fail(new TypedDataMismatch({ expected, received: digest }))
    )
  )
}
