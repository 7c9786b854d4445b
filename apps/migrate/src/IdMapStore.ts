/**
 * Where the migration tool keeps the id map: the same storage as the server, so a proxy and the API share it. MongoDB
 * when a URI is given (`MONGODB_URI`), else the SQLite file in the data directory (`SVC_DATA_DIR`, default `.data/`
 * in the checkout), migrated at open like the server's.
 */
import { join, resolve } from "node:path"
import { JongodbDatabase } from "@svc/adapters/embedded"
import { type MongoUnreachable, MongoV1IdMap } from "@svc/adapters/mongo"
import { SqliteDatabase, type SqliteDatabaseError, SqliteV1IdMap } from "@svc/adapters/sqlite"
import type { V1IdMap } from "@svc/domain/migration"
import { Layer } from "effect"

/** Where to find the map. */
export interface IdMapStoreOptions {
  readonly dataDir?: string | undefined
  readonly mongoUri?: string | undefined
  readonly mongoDatabase?: string | undefined
}

/** The data directory the server uses by default: `.data/` in the checkout. */
export const defaultDataDir = resolve(import.meta.dirname, "..", "..", "..", ".data")

/** The server's database file in a data directory (as `apps/api`'s embedded mode names it). */
export const databaseFileOf = (dataDir: string) => join(resolve(dataDir), "svc.db")

/**
 * The id map on the chosen storage; opening SQLite fails with `SqliteDatabaseError` (unwritable, too new), MongoDB with
 * `MongoUnreachable`.
 */
export const idMapLayer = (options: IdMapStoreOptions): Layer.Layer<V1IdMap, SqliteDatabaseError | MongoUnreachable> =>
  options.mongoUri !== undefined && options.mongoUri !== ""
    ? MongoV1IdMap.layer.pipe(
        Layer.provide(JongodbDatabase.layerDetected({ uri: options.mongoUri, database: options.mongoDatabase }))
      )
    : SqliteV1IdMap.layer.pipe(
        Layer.provide(SqliteDatabase.layer({ filename: databaseFileOf(options.dataDir ?? defaultDataDir) }))
      )
