/**
 * `StorageHealth` on MongoDB: the `ping` command, bounded by the client's server selection timeout.
 */
import { StorageHealth, StorageUnavailable } from "@svc/domain/StorageHealth"
import { Effect, Layer } from "effect"
import { MongoDatabase } from "./MongoDatabase.ts"

/** Pings the database with `{ping: 1}`. */
export const layer = Layer.effect(
  StorageHealth,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    return StorageHealth.of({
      ping: Effect.tryPromise({
        try: () => db.command({ ping: 1 }),
        catch: (error) => new StorageUnavailable({ reason: error instanceof Error ? error.message : String(error) })
      }).pipe(Effect.asVoid)
    })
  })
)
