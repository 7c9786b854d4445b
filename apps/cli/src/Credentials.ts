/**
 * Sessions kept between commands in `$XDG_CONFIG_HOME/svc/credentials.json` (default `~/.config/svc/`), the file
 * readable by its owner only (0600, in a 0700 directory): one JWT per API URL and wallet, and for each URL the wallet
 * `svc login` signed in last (its current session). Never a private key or a password: a keystore's path at most, to
 * sign in again when the JWT expires.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { CliFailure } from "./Failure.ts"

/** A signed-in session against one API. */
export interface StoredSession {
  readonly jwt: string
  readonly wallet: string
  readonly user: string
  /** When the JWT expires, unix seconds. */
  readonly expires: number
  /** The keystore signed in with, to sign in again when the JWT expires (the password is never kept). */
  readonly key_file?: string | undefined
}

interface CredentialsFile {
  /** By `sessionKey(url, wallet)`. */
  readonly sessions: Record<string, StoredSession>
  /** Per URL, the wallet of the session used when no key names one (`svc login`'s). */
  readonly current: Record<string, string>
}

/** The directory of the command line's configuration. */
export const configDirectory = (): string => join(process.env.XDG_CONFIG_HOME || join(homedir(), ".config"), "svc")

/** The credentials file. */
export const credentialsFile = (): string => join(configDirectory(), "credentials.json")

/** A URL without a trailing slash. */
const urlKey = (url: string) => url.replace(/\/+$/, "")

/** Where a wallet's session at a URL is kept. */
const sessionKey = (url: string, wallet: string) => `${urlKey(url)} ${wallet.toLowerCase()}`

/** Reads the file; one written before sessions were kept per wallet (keyed by URL alone) is read as current ones. */
const read = (): Effect.Effect<CredentialsFile, CliFailure> =>
  Effect.try({
    try: () => {
      const file = credentialsFile()
      if (!existsSync(file)) return { sessions: {}, current: {} }
      const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<CredentialsFile>
      const sessions: Record<string, StoredSession> = {}
      const current: Record<string, string> = { ...parsed.current }
      for (const [key, session] of Object.entries(parsed.sessions ?? {})) {
        if (key.includes(" ")) sessions[key] = session
        else {
          sessions[sessionKey(key, session.wallet)] = session
          current[urlKey(key)] ??= session.wallet.toLowerCase()
        }
      }
      return { sessions, current }
    },
    catch: () =>
      new CliFailure({ message: `cannot read ${credentialsFile()}: remove it and sign in again with \`svc login\`` })
  })

/** Written whole to a new 0600 file and renamed over the old one, so a reader never sees half of it. */
const write = (content: CredentialsFile): Effect.Effect<void, CliFailure> =>
  Effect.try({
    try: () => {
      const file = credentialsFile()
      if (Object.keys(content.sessions).length === 0) return rmSync(file, { force: true })
      const directory = configDirectory()
      mkdirSync(directory, { recursive: true, mode: 0o700 })
      const staging = `${file}.${process.pid}.tmp`
      writeFileSync(staging, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 })
      chmodSync(staging, 0o600)
      renameSync(staging, file)
    },
    catch: (error) =>
      new CliFailure({
        message: `cannot write ${credentialsFile()}: ${error instanceof Error ? error.message : error}`
      })
  })

/** The session kept for `wallet` at `url`; without a wallet, the URL's current one (`svc login`'s). */
export const loadSession = (url: string, wallet?: string): Effect.Effect<StoredSession | undefined, CliFailure> =>
  Effect.map(read(), (content) => {
    const owner = wallet ?? content.current[urlKey(url)]
    return owner === undefined ? undefined : content.sessions[sessionKey(url, owner)]
  })

/** The wallet of the URL's current session, if any. */
export const currentWallet = (url: string): Effect.Effect<string | undefined, CliFailure> =>
  Effect.map(read(), (content) => content.current[urlKey(url)])

/**
 * Keeps `session` for its wallet at `url`. It becomes the URL's current session when `current` is set (`svc login`),
 * or when the URL has none yet.
 */
export const saveSession = (
  url: string,
  session: StoredSession,
  options: { readonly current: boolean }
): Effect.Effect<void, CliFailure> =>
  Effect.flatMap(read(), (content) => {
    const key = urlKey(url)
    const current =
      options.current || content.current[key] === undefined
        ? { ...content.current, [key]: session.wallet.toLowerCase() }
        : content.current
    return write({ sessions: { ...content.sessions, [sessionKey(url, session.wallet)]: session }, current })
  })

/** Forgets every session at `url` (`all`: at every URL); answers how many there were. The file goes with the last. */
export const removeSessions = (url: string, all = false): Effect.Effect<number, CliFailure> =>
  Effect.flatMap(read(), (content) => {
    const prefix = `${urlKey(url)} `
    const gone = Object.keys(content.sessions).filter((key) => all || key.startsWith(prefix))
    if (gone.length === 0) return Effect.succeed(0)
    const sessions = Object.fromEntries(Object.entries(content.sessions).filter(([key]) => !gone.includes(key)))
    const current = all
      ? {}
      : Object.fromEntries(Object.entries(content.current).filter(([key]) => key !== urlKey(url)))
    return Effect.as(write({ sessions, current }), gone.length)
  })
