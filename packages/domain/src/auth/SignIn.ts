/**
 * The two steps of sign-in (SPEC §5): issue a SIWE challenge for a wallet, then accept its signature once and answer
 * the user of that wallet (created on its first sign-in, DESIGN §5).
 */
import { Context, DateTime, Effect, Layer, Option } from "effect"
import { type Hex, hashMessage } from "viem"
import type { Address } from "../Evm.ts"
import { IdGenerator } from "../Ids.ts"
import { Duplicates } from "../payout/DetectDuplicates.ts"
import { Randomness } from "../Randomness.ts"
import { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import { newUser, type User } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import type { SiweChallenge } from "./AuthRequests.ts"
import { consumeNonce, type NonceExpired, type NonceNotFound, NonceStore } from "./NonceStore.ts"
import { makeSiweMessage, type SiweFields, verifySiweMessage } from "./Siwe.ts"
import {
  type SiweMalformedMessage,
  SiweNotIssued,
  type SiweSignatureMismatch,
  type SiweValidationError
} from "./SiweError.ts"

/** Where sign-in happens: our authority, the URI messages are for, the chain. */
export interface SiweAudience {
  readonly domain: string
  readonly uri: string
  readonly chainId: number
  readonly statement?: string
  readonly ttlMillis?: number
}

/** GET /v2/auth/siwe: a fresh message for the wallet and its nonce, recorded until the message expires. */
export const issueSiweChallenge = Effect.fn("SignIn.issueSiweChallenge")(function* (
  wallet: Address,
  audience: SiweAudience,
  svcid?: string
): Effect.fn.Return<SiweChallenge, never, NonceStore | Randomness> {
  const { message, fields } = yield* makeSiweMessage({ ...audience, address: wallet }).pipe(Effect.orDie)
  const store = yield* NonceStore
  // makeSiweMessage always writes an expiration; the nonce lives exactly as long as the message.
  const expiresAt = Date.parse(fields.expirationTime ?? fields.issuedAt)
  yield* store.issue({
    nonce: fields.nonce,
    wallet: fields.address,
    expiresAt,
    messageHash: hashMessage(message),
    ...(svcid === undefined ? {} : { svcid })
  })
  return { siwe: message, nonce: fields.nonce }
})

/** What POST /v2/auth/verify receives. */
export interface SiweSignIn {
  readonly message: string
  readonly signature: Hex
  readonly nonce: string
}

/**
 * POST /v2/auth/verify: the message must be ours, current, signed by its wallet and carry a nonce we issued to that
 * wallet and not yet used, and be the very message issued with that nonce: a statement, Issued At or Expiration Time
 * the signer changed is refused (`SiweNotIssued`). The nonce is consumed only after the signature checks out, so
 * someone else's attempt does not spend it. The result's `address` is the authenticated wallet.
 */
export const completeSiweSignIn = Effect.fn("SignIn.completeSiweSignIn")(function* (
  signIn: SiweSignIn,
  audience: SiweAudience
): Effect.fn.Return<SiweFields & { readonly svcid?: string }, SignInError, NonceStore | SignatureVerifier> {
  const fields = yield* verifySiweMessage({
    message: signIn.message,
    signature: signIn.signature,
    expected: { domain: audience.domain, uri: audience.uri, chainId: audience.chainId, nonce: signIn.nonce }
  })
  // Bound to the signed message's wallet: someone else's attempt with this nonce does not spend it.
  const record = yield* consumeNonce(signIn.nonce, fields.address)
  // Checked on the consumed record: the wallet's own signature over an edited message spends its nonce.
  if (record.messageHash !== hashMessage(signIn.message)) return yield* new SiweNotIssued({ nonce: signIn.nonce })
  return record.svcid === undefined ? fields : { ...fields, svcid: record.svcid }
})

/** Why a sign-in is refused. */
export type SignInError =
  | SiweValidationError
  | SiweNotIssued
  | SiweMalformedMessage
  | SiweSignatureMismatch
  | NonceNotFound
  | NonceExpired

/** Sign-in for the routes: a challenge for a wallet, then the user whose wallet signed it. */
export class SignIn extends Context.Service<
  SignIn,
  {
    /** GET /v2/auth/siwe: the EIP-4361 message for `wallet` to sign, and its nonce. */
    readonly challenge: (wallet: Address, audience: SiweAudience, svcid?: string) => Effect.Effect<SiweChallenge>
    /** POST /v2/auth/verify: the user of the wallet that signed; an unknown wallet becomes a new user. */
    readonly complete: (signIn: SiweSignIn, audience: SiweAudience) => Effect.Effect<User, SignInError>
  }
>()("@svc/domain/auth/SignIn") {
  /** On the nonce store, the signature check and the users; with `Duplicates` when it is provided. */
  static readonly layer = Layer.effect(
    SignIn,
    Effect.gen(function* () {
      const nonces = yield* NonceStore
      const randomness = yield* Randomness
      const verifier = yield* SignatureVerifier
      const users = yield* UserRepository
      const ids = yield* IdGenerator
      // Where the deployment provides it: a new user's wallet that is another's payout address is a duplicate pair.
      const duplicates = yield* Effect.serviceOption(Duplicates)

      /** The user with `wallet`, created on first sign-in; concurrent first sign-ins agree on one user. */
      const userForWallet = Effect.fn("SignIn.userForWallet")(function* (wallet: Address, svcid: string | undefined) {
        const existing = yield* users.findByWallet(wallet)
        if (existing._tag === "Some") return existing.value
        const created = newUser({
          nanoid: yield* ids.make("user"),
          wallet,
          svcid,
          created_at: DateTime.formatIso(yield* DateTime.now)
        })
        return yield* users.insert(created).pipe(
          Effect.tap(() =>
            Option.match(duplicates, { onNone: () => Effect.void, onSome: (d) => d.detect(created, created.wallet) })
          ),
          Effect.as(created),
          Effect.catchTag("WalletTaken", () =>
            Effect.flatMap(users.findByWallet(wallet), (user) =>
              user._tag === "Some" ? Effect.succeed(user.value) : Effect.die(new Error("wallet taken but not found"))
            )
          )
        )
      })

      return SignIn.of({
        challenge: (wallet, audience, svcid) =>
          issueSiweChallenge(wallet, audience, svcid).pipe(
            Effect.provideService(NonceStore, nonces),
            Effect.provideService(Randomness, randomness)
          ),
        complete: Effect.fn("SignIn.complete")(function* (signIn, audience) {
          const fields = yield* completeSiweSignIn(signIn, audience).pipe(
            Effect.provideService(NonceStore, nonces),
            Effect.provideService(SignatureVerifier, verifier)
          )
          return yield* userForWallet(fields.address, fields.svcid)
        })
      })
    })
  )
}
