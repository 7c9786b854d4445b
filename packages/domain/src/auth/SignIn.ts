/**
 * The two steps of sign-in (SPEC §5): issue a SIWE challenge for a wallet, then accept its signature once.
 */
import { Effect } from "effect"
import type { Hex } from "viem"
import type { Address } from "../Evm.ts"
import type { Randomness } from "../Randomness.ts"
import type { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import { consumeNonce, type NonceExpired, type NonceNotFound, NonceStore } from "./NonceStore.ts"
import { makeSiweMessage, type SiweFields, verifySiweMessage } from "./Siwe.ts"
import type { SiweMalformedMessage, SiweSignatureMismatch, SiweValidationError } from "./SiweError.ts"

/** Where sign-in happens: our authority, the URI messages are for, the chain. */
export interface SiweAudience {
  readonly domain: string
  readonly uri: string
  readonly chainId: number
  readonly statement?: string
  readonly ttlMillis?: number
}

/** GET /v2/auth/siwe: a fresh message for the wallet, its nonce recorded until the message expires. */
export const issueSiweChallenge = Effect.fn("SignIn.issueSiweChallenge")(function* (
  wallet: Address,
  audience: SiweAudience,
  svcid?: string
): Effect.fn.Return<string, never, NonceStore | Randomness> {
  const { message, fields } = yield* makeSiweMessage({ ...audience, address: wallet }).pipe(Effect.orDie)
  const store = yield* NonceStore
  // makeSiweMessage always writes an expiration; the nonce lives exactly as long as the message.
  const expiresAt = Date.parse(fields.expirationTime ?? fields.issuedAt)
  yield* store.issue({
    nonce: fields.nonce,
    wallet: fields.address,
    expiresAt,
    ...(svcid === undefined ? {} : { svcid })
  })
  return message
})

/** What POST /v2/auth/verify receives. */
export interface SiweSignIn {
  readonly message: string
  readonly signature: Hex
  readonly nonce: string
}

/**
 * POST /v2/auth/verify: the message must be ours, current, signed by its wallet and carry a nonce we issued to that
 * wallet and not yet used. The nonce is consumed only after the signature checks out, so a bad attempt does not
 * spend it. The result's `address` is the authenticated wallet.
 */
export const completeSiweSignIn = Effect.fn("SignIn.completeSiweSignIn")(function* (
  signIn: SiweSignIn,
  audience: SiweAudience
): Effect.fn.Return<
  SiweFields & { readonly svcid?: string },
  SiweValidationError | SiweMalformedMessage | SiweSignatureMismatch | NonceNotFound | NonceExpired,
  NonceStore | SignatureVerifier
> {
  const fields = yield* verifySiweMessage({
    message: signIn.message,
    signature: signIn.signature,
    expected: { domain: audience.domain, uri: audience.uri, chainId: audience.chainId, nonce: signIn.nonce }
  })
  // Bound to the signed message's wallet: someone else's attempt with this nonce does not spend it.
  const record = yield* consumeNonce(signIn.nonce, fields.address)
  return record.svcid === undefined ? fields : { ...fields, svcid: record.svcid }
})
