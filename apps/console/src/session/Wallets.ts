/**
 * The browser wallets in the page (issue 40): those that announce themselves (EIP-6963: each answers
 * `eip6963:requestProvider` with `eip6963:announceProvider`, its name, icon and provider), and `window.ethereum` when
 * none does (an older wallet, or the only one). Several installed wallets are listed, so the person picks one.
 */
import type { Eip1193Provider } from "@svc/client"
import { useEffect, useState } from "react"

/** A wallet found in the page. */
export interface Wallet {
  /** The wallet's reverse-DNS name (`io.metamask`), or `injected` for `window.ethereum`. */
  readonly id: string
  readonly name: string
  /** An image as a `data:` URI (EIP-6963 requires one), if the wallet gave one. */
  readonly icon: string | undefined
  readonly provider: Eip1193Provider
}

interface Announcement {
  readonly info: { readonly uuid: string; readonly name: string; readonly icon: string; readonly rdns: string }
  readonly provider: Eip1193Provider
}

const announced = new Map<string, Wallet>()
const listeners = new Set<() => void>()

const onAnnounce = (event: Event) => {
  const detail = (event as CustomEvent<Announcement>).detail
  if (detail?.provider === undefined || typeof detail.info?.rdns !== "string") return
  // Only images: a wallet's icon is shown in an <img>, and the page's policy allows `data:` images and nothing else.
  const icon = /^data:image\/(png|svg\+xml|webp|jpeg|gif);/.test(detail.info.icon ?? "") ? detail.info.icon : undefined
  announced.set(detail.info.rdns, { id: detail.info.rdns, name: detail.info.name, icon, provider: detail.provider })
  for (const listener of listeners) listener()
}

let listening = false
const listen = () => {
  if (listening) return
  listening = true
  window.addEventListener("eip6963:announceProvider", onAnnounce)
  window.dispatchEvent(new Event("eip6963:requestProvider"))
}

/** Every wallet found so far: the announced ones, else `window.ethereum`. */
export const wallets = (): ReadonlyArray<Wallet> => {
  listen()
  if (announced.size > 0) return [...announced.values()]
  const injected = (window as unknown as { ethereum?: Eip1193Provider }).ethereum
  return injected === undefined ? [] : [{ id: "injected", name: "Browser wallet", icon: undefined, provider: injected }]
}

/** The wallets in the page, updated as wallets announce themselves. */
export const useWallets = (): ReadonlyArray<Wallet> => {
  const [found, setFound] = useState(wallets)
  useEffect(() => {
    const update = () => setFound(wallets())
    listeners.add(update)
    update()
    return () => {
      listeners.delete(update)
    }
  }, [])
  return found
}

/** The wallet `id`, or the first one when it is not (or no longer) in the page. */
export const walletById = (id: string | undefined): Wallet | undefined => {
  const all = wallets()
  return all.find((wallet) => wallet.id === id) ?? all[0]
}
