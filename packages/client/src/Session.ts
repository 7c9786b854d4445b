/**
 * The client's session: a JWT got by signing in with the account's wallet (SIWE), renewed quietly before it expires
 * (`POST /v2/auth/refresh`, no signature: decision 0102), and signed for again only when it cannot be renewed. A web
 * app keeps it across page loads with a `SessionStore` (`sessionStorage`, never `localStorage`).
 */
import { makeApiClient } from "@svc/contract"
import { Effect } from "effect"
import { readingAnswers, run, SvcError } from "./SvcError.ts"

/** Where a client keeps its JWT between runs of the program, such as a page's `sessionStorage`. */
export interface SessionStore {
  /** The kept JWT, if any. */
  readonly load: () => string | undefined
  /** Keeps the JWT, or forgets it (`undefined`). */
  readonly save: (jwt: string | undefined) => void
}

/** What signs the session in: the wallet's address and its EIP-191 signature of the SIWE message. */
export interface SessionSigner {
  readonly address: () => Promise<`0x${string}`>
  readonly signMessage: (message: string) => Promise<string>
}

/** A token is renewed in the last hour of its life; a minute before its end it is no longer used. */
export const renewWithinSeconds = 60 * 60
const usableForSeconds = 60

/** A JWT's `exp` (seconds), without checking it (the server does); 0 when there is none. */
export const expiryOf = (jwt: string): number => {
  try {
    const part = (jwt.split(".")[1] ?? "").replace(/-/g, "+").replace(/_/g, "/")
    const text = new TextDecoder().decode(Uint8Array.from(atob(part), (c) => c.charCodeAt(0)))
    const payload = JSON.parse(text) as { exp?: unknown }
    return typeof payload.exp === "number" ? payload.exp : 0
  } catch {
    return 0
  }
}

/** A session of `signer` with the API at `baseUrl`, kept in `store` when given. */
export const sessionOf = (baseUrl: string, signer: SessionSigner, store?: SessionStore) => {
  const anonymous = makeApiClient({ baseUrl, transformResponse: readingAnswers })
  const kept = store?.load()
  let session: { readonly jwt: string; readonly expires: number } | undefined =
    kept === undefined ? undefined : { jwt: kept, expires: expiryOf(kept) }
  const keep = (jwt: string | undefined) => {
    session = jwt === undefined ? undefined : { jwt, expires: expiryOf(jwt) }
    store?.save(jwt)
    return jwt
  }
  let signingIn: Promise<string> | undefined
  let renewing: Promise<string | undefined> | undefined
  // A token the server would not renew (its session is too old) is not asked for again; it serves until it expires.
  let notRenewed: string | undefined

  const signIn = (): Promise<string> => {
    signingIn ??= (async () => {
      try {
        const wallet = await signer.address()
        const challenge = await run(Effect.flatMap(anonymous, (api) => api.auth.siwe({ query: { wallet } as never })))
        const sig = await signer.signMessage(challenge.data.siwe)
        const verified = await run(
          Effect.flatMap(anonymous, (api) =>
            api.auth.verify({ payload: { message: challenge.data.siwe, sig, nonce: challenge.data.nonce } as never })
          )
        )
        return keep(verified.data.jwt) as string
      } finally {
        signingIn = undefined
      }
    })()
    return signingIn
  }

  /** A new token for the current one, or undefined when it could not be renewed now. */
  const renew = (jwt: string): Promise<string | undefined> => {
    if (notRenewed === jwt) return Promise.resolve(undefined)
    renewing ??= (async () => {
      try {
        const renewing = makeApiClient({ baseUrl, token: jwt, transformResponse: readingAnswers })
        const renewed = await run(Effect.flatMap(renewing, (api) => api.auth.refresh()))
        return keep(renewed.data.jwt)
      } catch (error) {
        if (error instanceof SvcError && error.status === 401) notRenewed = jwt
        return undefined
      } finally {
        renewing = undefined
      }
    })()
    return renewing
  }

  /** The token to send: the current one, renewed in its last hour; a new sign-in when there is none usable. */
  const token = async (): Promise<string> => {
    const now = Date.now() / 1000
    const current = session
    if (current !== undefined && current.expires - usableForSeconds > now) {
      if (current.expires - renewWithinSeconds > now) return current.jwt
      return (await renew(current.jwt)) ?? current.jwt
    }
    return signIn()
  }

  /** Forgets the token (and the store's copy): the next call signs in again. */
  const forget = () => {
    keep(undefined)
  }
  return { signIn, token, forget }
}
