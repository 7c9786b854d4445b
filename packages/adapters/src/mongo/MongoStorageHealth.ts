/**
 * `StorageHealth` on MongoDB: a real write in a transaction that is then aborted, bounded by the client's timeouts. A
 * `ping` answers while writes fail (a primary lost, a full disk, a read-only user): a write is what requests need.
 */
import { StorageHealth, StorageUnavailable } from "@svc/domain/StorageHealth"
import { Effect, Layer } from "effect"
import { MongoDatabase } from "./MongoDatabase.ts"
import { inAbortedTransaction } from "./MongoTransaction.ts"

/** The collection the probe writes to; nothing is ever committed to it. */
const probeCollection = "readiness_probe"

/** Inserts a document in a transaction and aborts it. */
export const layer = Layer.effect(
  StorageHealth,
  Effect.gen(function* () {
    const { db, client } = yield* MongoDatabase
    return StorageHealth.of({
      ping: inAbortedTransaction(client, (session) =>
        db.collection(probeCollection).insertOne({ at: new Date() }, { session })
      ).pipe(
        Effect.mapError(
          (error) => new StorageUnavailable({ reason: error instanceof Error ? error.message : String(error) })
        )
      )
    })
  })
)
