/**
 * `StorageHealth` on SQLite: a real write, rolled back. A read (`SELECT 1`) succeeded while another writer held the
 * write lock and every write answered 503 (issue 18): taking the write lock and writing is what a request needs.
 */
import { StorageHealth, StorageUnavailable } from "@svc/domain/StorageHealth"
import { Effect, Layer } from "effect"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/**
 * How long the probe waits for another connection's write lock (ms). node:sqlite waits synchronously, so the probe
 * waits less than readiness's own time limit rather than the requests' busy timeout.
 */
const probeBusyMillis = 1_000

/** `BEGIN IMMEDIATE` (the write lock), a write to the database header (`user_version`, to its own value), `ROLLBACK`. */
export const layer = Layer.effect(
  StorageHealth,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    return StorageHealth.of({
      ping: Effect.try({
        try: () => {
          // Synchronous: no other fiber's statement runs between these, so none meets the shorter timeout.
          if (connection.isTransaction) return
          const busy = Number(Object.values(connection.prepare("PRAGMA busy_timeout").get() ?? {})[0] ?? 5_000)
          connection.exec(`PRAGMA busy_timeout = ${probeBusyMillis}`)
          try {
            connection.exec("BEGIN IMMEDIATE")
            const version = Number(connection.prepare("PRAGMA user_version").get()?.user_version ?? 0)
            connection.exec(`PRAGMA user_version = ${version}`)
          } finally {
            if (connection.isTransaction) connection.exec("ROLLBACK")
            connection.exec(`PRAGMA busy_timeout = ${busy}`)
          }
        },
        catch: (error) => new StorageUnavailable({ reason: error instanceof Error ? error.message : String(error) })
      })
    })
  })
)
