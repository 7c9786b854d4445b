/**
 * Sessions kept between commands: one JWT per API URL in `$XDG_CONFIG_HOME/svc/credentials.json` (default
 * `~/.config/svc/`), the file readable by its owner only (0600, in a 0700 directory). Never a private key or a
 * password: a keystore's path at most, to sign in again when the JWT expires.
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
  readonly sessions: Record<string, StoredSession>
}

/** The directory of the command line's configuration. */
export const configDirectory = (): string => join(process.env.XDG_CONFIG_HOME || join(homedir(), ".config"), "svc")

/** The credentials file. */
export const credentialsFile = (): string => join(configDirectory(), "credentials.json")

/** The key under which a URL's session is kept: the URL without a trailing slash. */
const keyOf = (url: string) => url.replace(/\/+$/, "")

const read = (): Effect.Effect<CredentialsFile, CliFailure> =>
  Effect.try({
    try: () => {
      const file = credentialsFile()
      if (!existsSync(file)) return { sessions: {} }
      const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<CredentialsFile>
      return { sessions: parsed.sessions ?? {} }
    },
    catch: () =>
      new CliFailure({ message: `cannot read ${credentialsFile()}: remove it and sign in again with \`svc login\`` })
  })

/** Written whole to a new 0600 file and renamed over the old one, so a reader never sees half of it. */
const write = (content: CredentialsFile): Effect.Effect<void, CliFailure> =>
  Effect.try({
    try: () => {
      const directory = configDirectory()
      mkdirSync(directory, { recursive: true, mode: 0o700 })
      const file = credentialsFile()
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

/** The session kept for `url`, if any. */
export const loadSession = (url: string): Effect.Effect<StoredSession | undefined, CliFailure> =>
  Effect.map(read(), (content) => content.sessions[keyOf(url)])

/** Keeps `session` for `url`. */
export const saveSession = (url: string, session: StoredSession): Effect.Effect<void, CliFailure> =>
  Effect.flatMap(read(), (content) => write({ sessions: { ...content.sessions, [keyOf(url)]: session } }))

/** Forgets the session for `url`; answers whether there was one. The file goes when no session is left. */
export const removeSession = (url: string): Effect.Effect<boolean, CliFailure> =>
  Effect.flatMap(read(), (content) => {
    const key = keyOf(url)
    if (content.sessions[key] === undefined) return Effect.succeed(false)
    const { [key]: _removed, ...rest } = content.sessions
    if (Object.keys(rest).length > 0) return Effect.as(write({ sessions: rest }), true)
    return Effect.as(
      Effect.sync(() => rmSync(credentialsFile(), { force: true })),
      true
    )
  })
