/**
 * Signing in with the wallet key (SIWE through the API: GET /v2/auth/siwe, a signature made here, POST
 * /v2/auth/verify), and the authenticated client every other command uses: it signs in again by itself when the kept
 * JWT has expired and a key is at hand.
 */
import { makeApiClient } from "@svc/adapters/http"
import type { WalletAddress } from "@svc/domain/Evm"
import { Clock, Effect, Option, Redacted } from "effect"
import { privateKeyToAccount } from "viem/accounts"
import { answer } from "./Api.ts"
import { loadSession, type StoredSession, saveSession } from "./Credentials.ts"
import { CliFailure } from "./Failure.ts"
import { keyFromEnvironment, keyFromKeystore, type WalletKey } from "./Keys.ts"
import type { RootFlags } from "./Root.ts"

/** What the JWT says about its holder (read, not verified: the API verifies it). */
export interface TokenClaims {
  readonly sub: string
  readonly wallet: string
  readonly exp: number
}

/** The claims of a JWT. */
export const claimsOf = (jwt: string): TokenClaims | undefined => {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as TokenClaims
    return typeof payload.exp === "number" && typeof payload.sub === "string" ? payload : undefined
  } catch {
    return undefined
  }
}

/** A client of the API at the flags' URL, authenticated with `token` when given. */
export const clientOf = (flags: RootFlags, token?: string) =>
  makeApiClient({ baseUrl: flags.url, token }).pipe(
    Effect.mapError(() => new CliFailure({ message: `invalid --url: ${flags.url}` }))
  )

/** Signs in with `key` through SIWE and keeps the JWT; answers the kept session and the raw verify answer. */
export const signIn = Effect.fn("Session.signIn")(function* (flags: RootFlags, key: WalletKey) {
  const account = privateKeyToAccount(Redacted.value(key.privateKey))
  const client = yield* clientOf(flags)
  const challenge = yield* answer(
    flags.url,
    client.auth.siwe({
      query: { wallet: account.address.toLowerCase() as WalletAddress },
      responseMode: "decoded-and-response"
    })
  )
  const sig = yield* Effect.promise(() => account.signMessage({ message: challenge.value.data.siwe }))
  const verified = yield* answer(
    flags.url,
    client.auth.verify({
      payload: { message: challenge.value.data.siwe, sig, nonce: challenge.value.data.nonce },
      responseMode: "decoded-and-response"
    })
  )
  const jwt = verified.value.data.jwt
  const claims = claimsOf(jwt)
  if (claims === undefined) return yield* new CliFailure({ message: "the API answered a token that is not a JWT" })
  const session: StoredSession = {
    jwt,
    wallet: claims.wallet ?? account.address.toLowerCase(),
    user: claims.sub,
    expires: claims.exp,
    key_file: key.source._tag === "file" ? key.source.path : undefined
  }
  yield* saveSession(flags.url, session)
  return { session, verified }
})

/** Renewed a minute before expiry, so a command does not start with a token that dies on the way. */
const renewalMarginSeconds = 60

/**
 * The session for the flags' URL: the kept one while it is valid; otherwise a new sign-in with the key at hand
 * (`--key-file`, `SVC_PRIVATE_KEY`, or the keystore signed in with before); otherwise a failure saying to sign in.
 */
export const currentSession = Effect.fn("Session.current")(function* (flags: RootFlags) {
  const kept = yield* loadSession(flags.url)
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  if (kept !== undefined && kept.expires > now + renewalMarginSeconds) return kept
  const fromEnvironment = yield* keyFromEnvironment()
  const key = Option.isSome(flags.keyFile)
    ? Option.some(yield* keyFromKeystore(flags.keyFile.value))
    : Option.isSome(fromEnvironment)
      ? fromEnvironment
      : kept?.key_file !== undefined
        ? Option.some(yield* keyFromKeystore(kept.key_file))
        : Option.none<WalletKey>()
  if (Option.isNone(key)) {
    return yield* new CliFailure({
      message:
        kept === undefined
          ? `not signed in to ${flags.url}: run \`svc login\` (with SVC_PRIVATE_KEY or --key-file)`
          : `the session for ${flags.url} has expired: run \`svc login\` again`
    })
  }
  return (yield* signIn(flags, key.value)).session
})

/** A typed client signed in to the flags' URL, and the session it uses. */
export const authenticated = Effect.fn("Session.authenticated")(function* (flags: RootFlags) {
  const session = yield* currentSession(flags)
  return { client: yield* clientOf(flags, session.jwt), session }
})

/**
 * A typed client signed in as the wallet of `key`: the kept session when it is that wallet's (and valid), else a new
 * sign-in, so what the key signs and who calls are the same wallet.
 */
export const authenticatedAs = Effect.fn("Session.authenticatedAs")(function* (flags: RootFlags, key: WalletKey) {
  const wallet = privateKeyToAccount(Redacted.value(key.privateKey)).address.toLowerCase()
  const kept = yield* loadSession(flags.url)
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const session =
    kept !== undefined && kept.wallet === wallet && kept.expires > now + renewalMarginSeconds
      ? kept
      : (yield* signIn(flags, key)).session
  return { client: yield* clientOf(flags, session.jwt), session }
})
