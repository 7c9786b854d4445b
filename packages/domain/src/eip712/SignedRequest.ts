/**
 * The execution check of a signed request (PUT /v2/payments, PUT /v2/invites/manager): the record we issued is
 * the truth, the client's copy must match it, it must be current, signed by its `from`, and unused.
 */
import { Clock, Effect } from "effect"
import { type Hex, isAddressEqual } from "viem"
import type { Address, Uint256String } from "../Evm.ts"
import type { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import {
  type AlreadyClaimed,
  type ClaimedTypedData,
  ClaimLease,
  IssuedRequestStore,
  type TypedDataNotFound
} from "./IssuedRequestStore.ts"
import {
  type ExpiredTypedData,
  InvalidSignature,
  type MalformedTypedData,
  type TypedDataMismatch
} from "./TypedDataError.ts"
import { checkTypedDataExpiry, ensureSameTypedData, verifyDigestSignature } from "./TypedDataSignature.ts"

/** What the client sends back to execute. */
export interface SignedRequest {
  /** The client's copy of `typed_data`; its `salt` names the issued record. */
  readonly typedData: { readonly salt: Uint256String } & Record<string, unknown>
  readonly signer: Address
  readonly signature: Hex
}

/** Every reason an execution is refused before it reaches the chain. */
export type SignedRequestError =
  | TypedDataNotFound
  | TypedDataMismatch
  | ExpiredTypedData
  | InvalidSignature
  | MalformedTypedData
  | AlreadyClaimed

/**
 * Authorises the execution of a signed request and claims its salt, so it runs at most once across replicas.
 * Checks run cheapest first, but for the expiry, which comes after the signature; the salt is claimed last: a request
 * refused for any reason can be retried.
 * The claim holds for `ClaimLease` under a new fencing token, with the signature (so recovery can send it again); if
 * the execution then fails before reaching the chain, `IssuedRequestStore.release` the salt with that token.
 *
 * @example
 * const issued = yield* authorizeSignedRequest({ typedData: body.typed_data, signer: body.signer, signature: body.signature })
 * // settle issued.bundle with the ChainGateway
 */
export const authorizeSignedRequest = Effect.fn("SignedRequest.authorize")(function* (
  request: SignedRequest
): Effect.fn.Return<ClaimedTypedData, SignedRequestError, IssuedRequestStore | SignatureVerifier> {
  const store = yield* IssuedRequestStore
  const issued = yield* store.find(request.typedData.salt)
  // The digest is computed once from our record, and the signature checked against it.
  const digest = yield* ensureSameTypedData(issued.bundle, request.typedData)
  if (!isAddressEqual(request.signer, issued.bundle.typed_data.from)) {
    return yield* new InvalidSignature({ signer: request.signer, digest })
  }
  yield* verifyDigestSignature({ digest, signer: request.signer, signature: request.signature })
  // After the signature: an expired request that executed answers its result on replay, so only a request signed
  // as the forwarder accepts it (low s, its signer) may be told so; a malleable twin is refused like any bad one.
  yield* checkTypedDataExpiry(issued.bundle.typed_data)
  const now = yield* Clock.currentTimeMillis
  return yield* store.claim(issued.salt, { now, until: now + (yield* ClaimLease), signature: request.signature })
})
