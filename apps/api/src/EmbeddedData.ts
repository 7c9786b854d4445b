/**
 * What embedded mode (`npm start` without configuration) keeps in `SVC_DATA_DIR` so a restart finds everything as it
 * was (DESIGN §4): the database file, the chain's saved state, and `embedded.json` — the JWT signing secret (so tokens
 * issued before a restart stay valid), the webhook secret key (so stored endpoints keep signing), the relayer key and the deployed contracts, and the demo (its ids and the
 * admin's test key). The file is written whole (temporary file, then rename) and readable by its owner only.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import type { DeployedSuite } from "@svc/adapters/evm"
import type { CompanyId, TeamId } from "@svc/domain/Ids"
import { Effect, Schema } from "effect"
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
  readonly relayerKey: Hex
  /** Seals webhook signing secrets (decision 0024); absent in files written before webhooks. */
  readonly webhookSecretKey?: string | undefined
  readonly suite?: DeployedSuite | undefined
  readonly demo?: DemoPlan | undefined
}

/** `SVC_DATA_DIR`, or `.data/` in the checkout. */
export const dataDirectoryOf = (configured: string | undefined): string =>
  resolve(configured ?? resolve(import.meta.dirname, "..", "..", "..", ".data"))

/** The database file in the data directory. */
export const databaseFileOf = (directory: string) => join(directory, "svc.db")

/** The saved chain in the data directory. */
export const chainStateFileOf = (directory: string) => join(directory, "anvil-state.json")

const stateFileOf = (directory: string) => join(directory, "embedded.json")

/** Creates the directory if needed and checks that it can be written, changing nothing else. */
export const prepareDataDirectory = (directory: string) =>
  Effect.try({
    try: () => {
      mkdirSync(directory, { recursive: true, mode: 0o700 })
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
