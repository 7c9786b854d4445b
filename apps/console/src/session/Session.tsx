/**
 * Who is at the console: the connected browser wallet and, once it signed in (SIWE), a client of the API acting for
 * it. The JWT lives in this tab's `sessionStorage` (issue 40: never `localStorage`), so a reload keeps the session and
 * closing the tab ends it; it is renewed quietly before it expires (`POST /v2/auth/refresh`), and the wallet is asked
 * to sign only to sign in and to approve payments.
 */
import { createSvcClient, eip1193Account, requestWalletAddress, type SvcClient, type ViemAccount } from "@svc/client"
import { useQueryClient } from "@tanstack/react-query"
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react"
import { navigate } from "../navigation/Router.tsx"
import { type Wallet, walletById } from "./Wallets.ts"

const walletKey = "svc.console.wallet"
const tokenKey = "svc.console.jwt"
/** How often the session is looked at, and renewed when in its last hour. */
const renewEveryMillis = 5 * 60_000

interface Connected {
  readonly walletId: string
  readonly address: `0x${string}`
}

/** The session as pages see it. */
export interface Session {
  /** The connected wallet's address (lower case), once connected. */
  readonly address: `0x${string}` | undefined
  /** The client acting for the wallet, once it signed in. */
  readonly client: SvcClient | undefined
  /** The signed-in member's user id (the `sub` of the session's token). */
  readonly user: string | undefined
  /**
   * Another account of the connected wallet as a signer (a payout address it holds, decision 0108); the wallet asks
   * its person before signing as it.
   */
  readonly accountOf: (address: `0x${string}`) => ViemAccount | undefined
  readonly connect: (wallet: Wallet) => Promise<void>
  readonly signIn: () => Promise<void>
  readonly signOut: () => void
}

const SessionContext = createContext<Session | undefined>(undefined)

/** The user id a JWT names (its `sub`), read without checking it: the API checks every call. */
const userOfToken = (jwt: string | null): string | undefined => {
  try {
    const part = (jwt ?? "").split(".")[1] ?? ""
    return (JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/"))) as { sub?: string }).sub
  } catch {
    return undefined
  }
}

const readConnected = (): Connected | undefined => {
  try {
    const value = JSON.parse(sessionStorage.getItem(walletKey) ?? "null") as Connected | null
    return value !== null && /^0x[0-9a-f]{40}$/.test(value.address) ? value : undefined
  } catch {
    return undefined
  }
}

/** The wallet as the client's account; it finds the wallet in the page at each signature (it may announce late). */
const accountOf = (connected: Connected): ViemAccount => {
  const signer = () => {
    const wallet = walletById(connected.walletId)
    if (wallet === undefined) throw new Error("No browser wallet found in this page: open the console where it is")
    return eip1193Account(wallet.provider, connected.address)
  }
  return {
    address: connected.address,
    signMessage: (args) => signer().signMessage(args),
    signTypedData: (args) => signer().signTypedData(args)
  }
}

const clientOf = (connected: Connected) =>
  createSvcClient({
    baseUrl: window.location.origin,
    account: accountOf(connected),
    session: {
      load: () => sessionStorage.getItem(tokenKey) ?? undefined,
      save: (jwt) => (jwt === undefined ? sessionStorage.removeItem(tokenKey) : sessionStorage.setItem(tokenKey, jwt))
    }
  })

/** Provides the session to the console. */
export const SessionProvider = ({ children }: { readonly children: ReactNode }) => {
  const queryClient = useQueryClient()
  const [connected, setConnected] = useState(readConnected)
  const [signedIn, setSignedIn] = useState(() => connected !== undefined && sessionStorage.getItem(tokenKey) !== null)
  const client = useMemo(() => (connected === undefined ? undefined : clientOf(connected)), [connected])

  const connect = useCallback(async (wallet: Wallet) => {
    const address = (await requestWalletAddress(wallet.provider)).toLowerCase() as `0x${string}`
    const next = { walletId: wallet.id, address }
    sessionStorage.setItem(walletKey, JSON.stringify(next))
    sessionStorage.removeItem(tokenKey)
    setSignedIn(false)
    setConnected(next)
  }, [])
  const signIn = useCallback(async () => {
    if (client === undefined) return
    await client.signIn()
    setSignedIn(true)
  }, [client])
  const signOut = useCallback(() => {
    client?.signOut()
    sessionStorage.removeItem(walletKey)
    sessionStorage.removeItem(tokenKey)
    setSignedIn(false)
    setConnected(undefined)
    queryClient.clear()
    navigate("/")
  }, [client, queryClient])

  useSessionUpkeep(client, signedIn, connected, signOut)
  const session = useMemo(
    () => ({
      address: connected?.address,
      client: signedIn ? client : undefined,
      user: signedIn ? userOfToken(sessionStorage.getItem(tokenKey)) : undefined,
      accountOf: (address: `0x${string}`) =>
        connected === undefined ? undefined : accountOf({ walletId: connected.walletId, address }),
      connect,
      signIn,
      signOut
    }),
    [connected, signedIn, client, connect, signIn, signOut]
  )
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
}

/**
 * Keeps a signed-in session alive (renewed in its last hour, looked at every few minutes and when the tab is shown
 * again) and ends it when the wallet switches to another account.
 */
const useSessionUpkeep = (
  client: SvcClient | undefined,
  signedIn: boolean,
  connected: Connected | undefined,
  signOut: () => void
) => {
  useEffect(() => {
    if (client === undefined || !signedIn) return
    const renew = () => {
      if (document.visibilityState === "visible") client.token().catch(() => undefined)
    }
    const timer = window.setInterval(renew, renewEveryMillis)
    document.addEventListener("visibilitychange", renew)
    return () => {
      window.clearInterval(timer)
      document.removeEventListener("visibilitychange", renew)
    }
  }, [client, signedIn])
  useEffect(() => {
    const provider = connected === undefined ? undefined : walletById(connected.walletId)?.provider
    if (provider?.on === undefined || connected === undefined) return
    const changed = (accounts: ReadonlyArray<string>) => {
      if (accounts[0]?.toLowerCase() !== connected.address) signOut()
    }
    provider.on("accountsChanged", changed as never)
    return () => provider.removeListener?.("accountsChanged", changed as never)
  }, [connected, signOut])
}

/** The session (inside `SessionProvider`). */
export const useSession = (): Session => {
  const session = useContext(SessionContext)
  if (session === undefined) throw new Error("useSession outside SessionProvider")
  return session
}

/** The signed-in client (inside the signed-in part of the console). */
export const useClient = (): SvcClient => {
  const { client } = useSession()
  if (client === undefined) throw new Error("useClient before sign-in")
  return client
}
