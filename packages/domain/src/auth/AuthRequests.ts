/**
 * Bodies of the sign-in routes (SPEC §5, §4.12) and the claims of the access token they issue.
 */
import { Schema } from "effect"
import { Address, SignatureBytes } from "../Evm.ts"
import { UserId } from "../Ids.ts"

/** A JWT lives 24 hours (SPEC §5, §8). */
export const accessTokenLifetimeSeconds = 24 * 60 * 60

/** GET /v2/auth/siwe query: the wallet to sign in, and optionally the caller's svcid (`riseid` renamed). */
export const SiweChallengeQuery = Schema.Struct({
  wallet: Address,
  svcid: Schema.optionalKey(Schema.String)
})
export type SiweChallengeQuery = typeof SiweChallengeQuery.Type

/** GET /v2/auth/siwe response: the EIP-4361 message to sign (it has a `Nonce: ` line). */
export const SiweChallengeResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ siwe: Schema.String })
})
export type SiweChallengeResponse = typeof SiweChallengeResponse.Type

/**
 * POST /v2/auth/verify body: the signed message, the signature and the nonce from the message. The signature may
 * be longer than 65 bytes, so contract wallets (ERC-1271, ERC-6492) can sign in.
 */
export const SiweVerifyRequest = Schema.Struct({
  message: Schema.String.pipe(Schema.check(Schema.isMaxLength(4096))),
  sig: SignatureBytes,
  nonce: Schema.String
})
export type SiweVerifyRequest = typeof SiweVerifyRequest.Type

/** POST /v2/auth/verify response: the access token. */
export const SiweVerifyResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ jwt: Schema.String })
})
export type SiweVerifyResponse = typeof SiweVerifyResponse.Type

/** What the access token asserts: the user, the wallet that signed in, and its validity (unix seconds). */
export const AccessTokenClaims = Schema.Struct({
  sub: UserId,
  wallet: Address,
  iat: Schema.Int,
  exp: Schema.Int
})
export type AccessTokenClaims = typeof AccessTokenClaims.Type
