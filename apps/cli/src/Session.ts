/**
 * Signing in with the wallet key (SIWE through the API: GET /v2/auth/siwe, a signature made here, POST
 * /v2/auth/verify), and the authenticated client every other command uses: it signs in again by itself when the kept
 * JWT has expired and a key is at hand.
 */
import { makeApiClient } from "@svc/contract"
import type { WalletAddress } from "@svc/domain/Evm"
import { Clock, Console, Effect, Option, Redacted } from "effect"
import { privateKeyToAccount } from "viem/accounts"
import { answer } from "./Api.ts"
import { currentWallet, loadSession, type StoredSession, saveSession } from "./Credentials.ts"
import { CliFailure } from "./Failure.ts"
import { keyFromEnvironment, keyFromKeystore, type WalletKey, walletOfKeyAtHand } from "./Keys.ts"
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

/**
 * Signs in with `key` through SIWE and keeps the JWT for its wallet; answers the kept session and the raw verify
 * answer. With `current` (`svc login`), it becomes the session used when no key names a wallet.
 */
export const signIn = Effect.fn("Session.signIn")(function* (
  flags: RootFlags,
  key: WalletKey,
  options: { readonly current: boolean } = { current: false }
) {
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
  yield* saveSession(flags.url, session, options)
  return { session, verified }
})

/** Renewed a minute before expiry, so a command does not start with a token that dies on the way. */
const renewalMarginSeconds = 60

/**
 * The session for the flags' URL, for the wallet of the key at hand (`--key-file`, else `SVC_PRIVATE_KEY`): its kept
 * session while valid, else a new sign-in with that key. Without a key, the URL's current session (`svc login`'s)
 * while valid, else a new sign-in with the keystore it was made with; otherwise a failure saying to sign in. A kept
 * session is never used for another wallet's key: signing in as that wallet is said on stderr.
 */
export const currentSession = Effect.fn("Session.current")(function* (flags: RootFlags) {
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const valid = (session: StoredSession | undefined) =>
    session !== undefined && session.expires > now + renewalMarginSeconds
  const named = yield* walletOfKeyAtHand(flags.keyFile)
  const hasKey = Option.isSome(flags.keyFile) || Option.isSome(yield* keyFromEnvironment())
  if (hasKey) {
    const kept = Option.isSome(named) ? yield* loadSession(flags.url, named.value) : undefined
    if (kept !== undefined && valid(kept)) return kept
    const key = Option.isSome(flags.keyFile)
      ? yield* keyFromKeystore(flags.keyFile.value)
      : Option.getOrThrow(yield* keyFromEnvironment())
    const wallet = privateKeyToAccount(Redacted.value(key.privateKey)).address.toLowerCase()
    const current = yield* currentWallet(flags.url)
    if (current !== undefined && current !== wallet) {
      const source = key.source._tag === "file" ? `--key-file ${key.source.path}` : "SVC_PRIVATE_KEY"
      yield* Console.error(`signing in to ${flags.url} as ${wallet} (${source}), not as ${current} of \`svc login\``)
    }
    return (yield* signIn(flags, key)).session
  }
  const kept = yield* loadSession(flags.url)
  if (kept !== undefined && valid(kept)) return kept
  if (kept?.key_file !== undefined) return (yield* signIn(flags, yield* keyFromKeystore(kept.key_file))).session
  return yield* new CliFailure({
    message:
      kept === undefined
        ? `not signed in to ${flags.url}: run \`svc login\` (with SVC_PRIVATE_KEY or --key-file)`
        : `the session for ${flags.url} has expired: run \`svc login\` again`
  })
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
  const kept = yield* loadSession(flags.url, wallet)
  const now = Math.floor((yield* Clock.currentTimeMillis) / 1000)
  const session =
    kept !== undefined && kept.wallet === wallet && kept.expires > now + renewalMarginSeconds
      ? kept
      : (yield* signIn(flags, key)).session
  return { client: yield* clientOf(flags, session.jwt), session }
})
