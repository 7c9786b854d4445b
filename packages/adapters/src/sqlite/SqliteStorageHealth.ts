/**
 * `StorageHealth` on SQLite: a trivial read on the connection, which fails when the file is gone or locked past the
 * busy timeout.
 */
import { StorageHealth, StorageUnavailable } from "@svc/domain/StorageHealth"
import { Effect, Layer } from "effect"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** Pings the database with `SELECT 1`. */
export const layer = Layer.effect(
  StorageHealth,
  Effect.gen(function* () {
    const { connection } = yield* SqliteDatabase
    return StorageHealth.of({
      ping: Effect.try({
        try: () => void connection.prepare("SELECT 1").get(),
        catch: (error) => new StorageUnavailable({ reason: error instanceof Error ? error.message : String(error) })
      })
    })
  })
)
