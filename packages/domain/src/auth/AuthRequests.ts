/**
 * Bodies of the sign-in routes (SPEC §5, §4.12) and the claims of the access token they issue. The API's contract
 * uses these schemas as they are.
 */
import { Schema } from "effect"
import { WalletAddress } from "../Evm.ts"
import { UserId } from "../Ids.ts"
import { isCharacterLength } from "../Text.ts"

/** A JWT lives 24 hours (SPEC §5, §8). */
export const accessTokenLifetimeSeconds = 24 * 60 * 60

/**
 * How long a session may be renewed (`POST /v2/auth/refresh`) after the wallet signed in: 7 days. Past it, the wallet
 * signs in again, so a token that leaked cannot be kept alive for ever (decision 0102).
 */
export const sessionLifetimeSeconds = 7 * 24 * 60 * 60

/** The caller's service identifier (`riseid` renamed), optional (DESIGN §5). */
export const SvcId = Schema.String.pipe(
  Schema.check(Schema.isMaxLength(128, { message: "Expected an svcid of at most 128 characters" }))
)

/** GET /v2/auth/siwe query: the wallet to sign in, and optionally the caller's svcid. */
export const SiweChallengeQuery = Schema.Struct({
  wallet: WalletAddress,
  svcid: Schema.optionalKey(SvcId)
})
export type SiweChallengeQuery = typeof SiweChallengeQuery.Type

/** GET /v2/auth/siwe `data`: the EIP-4361 message to sign (it has a `Nonce: ` line), and that nonce. */
export const SiweChallenge = Schema.Struct({ siwe: Schema.String, nonce: Schema.String })
export type SiweChallenge = typeof SiweChallenge.Type

/**
 * POST /v2/auth/verify body: the signed message, the signature and the nonce from the message. The signature may
 * be longer than 65 bytes (up to 4096), so contract wallets (ERC-1271, ERC-6492) can sign in.
 */
export const SiweVerifyRequest = Schema.Struct({
  message: Schema.String.pipe(
    Schema.check(isCharacterLength(1, 4096, { message: "Expected a message of 1 to 4096 characters" }))
  ),
  sig: Schema.TemplateLiteral(["0x", Schema.String]).pipe(
    Schema.check(
      Schema.isPattern(/^0x(?:[a-fA-F0-9]{2}){1,4096}$/u, { message: "Expected a signature: 0x followed by hex bytes" })
    )
  ),
  nonce: Schema.String.pipe(
    Schema.check(isCharacterLength(8, 128, { message: "Expected a nonce of 8 to 128 characters" }))
  )
})
export type SiweVerifyRequest = typeof SiweVerifyRequest.Type

/** POST /v2/auth/verify `data`: the access token. */
export const SiweVerified = Schema.Struct({ jwt: Schema.String })
export type SiweVerified = typeof SiweVerified.Type

/**
 * What the access token asserts: the user, the wallet that signed in, its id and its validity (unix seconds), and
 * when the wallet signed in (`auth_time`; a renewed token keeps it; tokens issued before renewal existed lack it, and
 * their `iat` is that time).
 */
export const AccessTokenClaims = Schema.Struct({
  sub: UserId,
  wallet: WalletAddress,
  jti: Schema.String,
  iat: Schema.Int,
  exp: Schema.Int,
  auth_time: Schema.optionalKey(Schema.Int)
})
export type AccessTokenClaims = typeof AccessTokenClaims.Type
