/**
 * The console's URL is its state (issue 40: nothing is lost on a reload): `/console/<team>/<page>/<detail>?<filters>`.
 * A few lines over the History API: the location as an external store, links that navigate without a reload, and the
 * search parameters a page reads and writes (filters, the open tab).
 */
import { type AnchorHTMLAttributes, type MouseEvent, useCallback, useSyncExternalStore } from "react"

/** Where the console is served (Vite's `base`). */
export const basePath = "/console"

const listeners = new Set<() => void>()
const notify = () => {
  for (const listener of listeners) listener()
}
const subscribe = (listener: () => void) => {
  listeners.add(listener)
  window.addEventListener("popstate", listener)
  return () => {
    listeners.delete(listener)
    window.removeEventListener("popstate", listener)
  }
}
const snapshot = () => `${window.location.pathname}${window.location.search}`

/** The console's current location: the path's segments after `/console`, and the search parameters. */
export interface ConsoleLocation {
  readonly segments: ReadonlyArray<string>
  readonly search: URLSearchParams
}

const parse = (href: string): ConsoleLocation => {
  const url = new URL(href, window.location.origin)
  const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname
  return {
    segments: path
      .split("/")
      .filter((segment) => segment !== "")
      .map(decodeURIComponent),
    search: url.searchParams
  }
}

/** Goes to `to` (a path under `/console`, with its search), adding to the history unless `replace`. */
export const navigate = (to: string, options: { readonly replace?: boolean } = {}) => {
  const href = `${basePath}${to.startsWith("/") ? to : `/${to}`}`
  if (href === snapshot()) return
  if (options.replace === true) window.history.replaceState(null, "", href)
  else window.history.pushState(null, "", href)
  window.scrollTo(0, 0)
  notify()
}

/** The current location; the component renders again when it changes. */
export const useLocation = (): ConsoleLocation => parse(useSyncExternalStore(subscribe, snapshot))

/**
 * The search parameters and a setter that changes some of them (an empty value removes one) and replaces the
 * history entry, so filters do not fill the back button.
 */
export const useSearch = (): readonly [URLSearchParams, (changes: Record<string, string | undefined>) => void] => {
  const { search } = useLocation()
  const update = useCallback((changes: Record<string, string | undefined>) => {
    const next = new URLSearchParams(window.location.search)
    for (const [name, value] of Object.entries(changes)) {
      if (value === undefined || value === "") next.delete(name)
      else next.set(name, value)
    }
    const query = next.toString()
    window.history.replaceState(null, "", `${window.location.pathname}${query === "" ? "" : `?${query}`}`)
    notify()
  }, [])
  return [search, update]
}

/** A link inside the console: a real `<a href>` (it opens in a new tab as one), followed here without a reload. */
export const Link = ({ to, onClick, ...props }: AnchorHTMLAttributes<HTMLAnchorElement> & { readonly to: string }) => {
  const follow = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event)
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey) return
    event.preventDefault()
    navigate(to)
  }
  return <a {...props} href={`${basePath}${to}`} onClick={follow} />
}
