/**
 * `StorageHealth` on MongoDB: a real write, acknowledged by a majority, bounded by the client's timeouts. A `ping`
 * answers while writes fail (a primary lost, a majority of members down, a full disk, a read-only user): a write is
 * what requests need.
 */
import { StorageHealth, StorageUnavailable } from "@svc/domain/StorageHealth"
import { Clock, Effect, Layer } from "effect"
import { MongoDatabase } from "./MongoDatabase.ts"
import { tryMongo } from "./MongoErrors.ts"

/** The collection the probe writes to: one document, written over at each probe. */
const probeCollection = "readiness_probe"

/** Writes the probe's document. */
export const layer = Layer.effect(
  StorageHealth,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const probes = db.collection<{ _id: string; at: number }>(probeCollection)
    return StorageHealth.of({
      ping: Effect.flatMap(Clock.currentTimeMillis, (at) =>
        tryMongo(() => probes.updateOne({ _id: "probe" }, { $set: { at } }, { upsert: true }))
      ).pipe(
        Effect.asVoid,
        Effect.catch((failure) =>
          Effect.fail(
            failure._tag === "StorageUnavailable" ? failure : new StorageUnavailable({ reason: String(failure.cause) })
          )
        ),
        // A write the driver could not class (a bug, say) still says the database does not take writes.
        Effect.catchDefect((defect) =>
          Effect.fail(new StorageUnavailable({ reason: defect instanceof Error ? defect.message : String(defect) }))
        )
      )
    })
  })
)
