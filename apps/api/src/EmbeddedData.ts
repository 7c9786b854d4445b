/**
 * What embedded mode (`npm start` without configuration) keeps in `SVC_DATA_DIR` so a restart finds everything as it
 * was (DESIGN §4): the database file, the chain's saved state, and `embedded.json` — the JWT signing secret (so tokens
 * issued before a restart stay valid), the webhook secret key (so stored endpoints keep signing), the relayer keys,
 * the deployed contracts, the demo (its ids and the admin's test key), and the port anvil listens on (so its RPC URL,
 * and the deposit command printed with it, stay the same). The file is written whole (temporary file, then rename)
 * and readable by its owner only.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync
} from "node:fs"
import { join, resolve } from "node:path"
import { DatabaseSync } from "node:sqlite"
import type { DeployedSuite } from "@svc/adapters/evm"
import type { CompanyId, TeamId } from "@svc/domain/Ids"
import { Effect, Schema, type Scope } from "effect"
import type { Hex } from "viem"

/** The data directory cannot be used: the message says which path and why. */
export class DataDirectoryError extends Schema.TaggedError<DataDirectoryError>()("DataDirectoryError", {
  message: Schema.String
}) {}

/** The demo `npm start` seeds once: fixed before it is seeded, so a start that died half-way seeds the same one. */
export interface DemoPlan {
  readonly companyId: CompanyId
  readonly teamId: TeamId
  readonly adminKey: Hex
  readonly memberKeys: ReadonlyArray<Hex>
}

/** The contents of `embedded.json`. */
export interface EmbeddedState {
  readonly jwtSecret: string
  /** The relayer's keys (two since issue 24: decision 0060). */
  readonly relayerKeys?: ReadonlyArray<Hex> | undefined
  /** The one relayer key of files written before: kept as the first of `relayerKeys`. */
  readonly relayerKey?: Hex | undefined
  /** Seals webhook signing secrets (decision 0024); absent in files written before webhooks. */
  readonly webhookSecretKey?: string | undefined
  readonly suite?: DeployedSuite | undefined
  readonly demo?: DemoPlan | undefined
  /** The embedded anvil's port, the same at every start (issue 35, item 4); absent in files written before. */
  readonly anvilPort?: number | undefined
}

/** `SVC_DATA_DIR`, or `.data/` in the checkout. */
export const dataDirectoryOf = (configured: string | undefined): string =>
  resolve(configured ?? resolve(import.meta.dirname, "..", "..", "..", ".data"))

/** The database file in the data directory. */
export const databaseFileOf = (directory: string) => join(directory, "svc.db")

/** The saved chain in the data directory. */
export const chainStateFileOf = (directory: string) => join(directory, "anvil-state.json")

const stateFileOf = (directory: string) => join(directory, "embedded.json")

/**
 * Creates the directory if needed and checks that it can be written. Everything in it is for this user only: from
 * here on the process creates files 0600 and directories 0700 (its umask, which anvil inherits), and an existing
 * directory and the files in it are tightened to that (issue 18, item 2).
 */
export const prepareDataDirectory = (directory: string) =>
  Effect.try({
    try: () => {
      process.umask(0o077)
      mkdirSync(directory, { recursive: true, mode: 0o700 })
      chmodSync(directory, 0o700)
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        if (entry.isFile()) chmodSync(join(directory, entry.name), 0o600)
      }
      // access() says yes to root on a read-only mount: a real write settles it.
      const probe = join(directory, `.write-test-${process.pid}`)
      writeFileSync(probe, "")
      unlinkSync(probe)
      return directory
    },
    catch: (error) =>
      new DataDirectoryError({
        message: `The data directory ${directory} (SVC_DATA_DIR) cannot be used: ${(error as Error).message}`
      })
  })

/** Who holds the data directory: the pid its holder wrote, if any. */
const holderOf = (directory: string): string | undefined => {
  try {
    return /^\d+/.exec(readFileSync(join(directory, "svc.pid"), "utf8"))?.[0]
  } catch {
    return undefined
  }
}

/**
 * Holds the data directory for this process, for the scope's lifetime: one process per directory (two would run two
 * anvils over one saved chain, and their balances would part). The hold is an exclusive SQLite lock on `svc.lock`,
 * which the operating system releases when the process ends however it ends, `kill -9` included, so a crash never
 * leaves a stale lock behind. `svc.pid` names the holder for the message a second start prints; that start changes
 * nothing (docs/decisions/0053).
 */
export const lockDataDirectory = (directory: string): Effect.Effect<void, DataDirectoryError, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        const file = join(directory, "svc.lock")
        const lock = new DatabaseSync(file, { timeout: 0 })
        try {
          // Exclusive locking mode keeps the lock taken by the first write until the connection closes.
          lock.exec("PRAGMA locking_mode = EXCLUSIVE")
          lock.exec("CREATE TABLE IF NOT EXISTS holder (pid INTEGER)")
          lock.exec(`DELETE FROM holder; INSERT INTO holder VALUES (${process.pid})`)
        } catch {
          lock.close()
          const holder = holderOf(directory)
          throw new DataDirectoryError({
            message: `The data directory ${directory} (SVC_DATA_DIR) is in use by another svc process${
              holder === undefined ? "" : ` (pid ${holder})`
            }: stop it first, or give this one a directory of its own`
          })
        }
        chmodSync(file, 0o600)
        writeFileSync(join(directory, "svc.pid"), `${process.pid}\n`, { mode: 0o600 })
        return lock
      },
      catch: (error) =>
        error instanceof DataDirectoryError
          ? error
          : new DataDirectoryError({
              message: `The data directory ${directory} (SVC_DATA_DIR) cannot be locked: ${(error as Error).message}`
            })
    }),
    (lock) =>
      Effect.sync(() => {
        if (holderOf(directory) === String(process.pid)) unlinkSync(join(directory, "svc.pid"))
        lock.close()
      })
  ).pipe(Effect.asVoid)

/** The state kept by an earlier start, if any. */
export const readEmbeddedState = (directory: string) =>
  Effect.try({
    try: (): EmbeddedState | undefined => {
      const file = stateFileOf(directory)
      return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as EmbeddedState) : undefined
    },
    catch: (error) =>
      new DataDirectoryError({
        message: `${stateFileOf(directory)} cannot be read: ${(error as Error).message}; move it away to start afresh`
      })
  })

/** Replaces the kept state whole. */
export const writeEmbeddedState = (directory: string, state: EmbeddedState) =>
  Effect.sync(() => {
    const file = stateFileOf(directory)
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
    renameSync(temporary, file)
  })
