/**
 * The sign-in nonces we issued, so each SIWE message is accepted at most once and only while it is fresh.
 */
import { Clock, Context, Effect, Schema } from "effect"
import type { Address } from "../Evm.ts"
import type { ErrorCode } from "../errors/ErrorCatalog.ts"

/** A nonce we issued: for which wallet, with which message, and until when (epoch milliseconds). */
export interface NonceRecord {
  readonly nonce: string
  readonly wallet: Address
  readonly expiresAt: number
  /**
   * The EIP-191 hash of the message issued with the nonce (`hashMessage`): sign-in takes that message byte for byte.
   * "" for a nonce stored without one, which no message matches.
   */
  readonly messageHash: string
  /** The caller's svcid given with the challenge, kept for the user that signs in with it. */
  readonly svcid?: string
}

/** No such nonce: never issued, or already consumed. */
export class NonceNotFound extends Schema.TaggedError<NonceNotFound>()("NonceNotFound", { nonce: Schema.String }) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "EXPIRED_NONCE"
  }
}

/** The nonce was issued but its time has passed. */
export class NonceExpired extends Schema.TaggedError<NonceExpired>()("NonceExpired", {
  nonce: Schema.String,
  expiresAt: Schema.Number
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "EXPIRED_NONCE"
  }
}

/**
 * Issued sign-in nonces. Implementations must make `consume` atomic: of any number of concurrent calls for one nonce,
 * across all API replicas, at most one succeeds; a consumed or expired nonce never succeeds again; and a call for
 * another wallet than the nonce's changes nothing (so nobody can spend someone else's nonce).
 */
export class NonceStore extends Context.Service<
  NonceStore,
  {
    /** Records a freshly issued nonce. */
    readonly issue: (record: NonceRecord) => Effect.Effect<void>
    /**
     * Spends the nonce and returns its record if it was issued to `wallet` (any letter case), is unspent, and `now`
     * (epoch ms) is before its expiry.
     */
    readonly consume: (
      nonce: string,
      wallet: Address,
      now: number
    ) => Effect.Effect<NonceRecord, NonceNotFound | NonceExpired>
  }
>()("@svc/domain/auth/NonceStore") {}

/** Spends `wallet`'s nonce at the current `Clock` time. */
export const consumeNonce = (nonce: string, wallet: Address) =>
  Effect.flatMap(Clock.currentTimeMillis, (now) => NonceStore.use((store) => store.consume(nonce, wallet, now)))
