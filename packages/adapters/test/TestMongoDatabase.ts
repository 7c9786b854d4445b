/**
 * The `MongoDatabase` tests run on: the test run's server (`inject("mongoUri")`: the run's jongodb, through the layer
 * that stands in for a replica set, or the replica set `MONGODB_URI` names), on a database of the test's own.
 */
import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import { MongoClient } from "mongodb"
import { inject } from "vitest"
import { startJongodb } from "../src/embedded/Jongodb.ts"
import { layerDetected } from "../src/embedded/JongodbDatabase.ts"

/** A fresh database named `prefix_…` on the run's server. */
export const testMongoDatabase = (prefix: string) =>
  layerDetected({ uri: inject("mongoUri"), database: `${prefix}_${randomUUID().replaceAll("-", "")}` })

/**
 * The URI of a server for the current scope alone (`MONGODB_URI`'s replica set when the run is given one, else an
 * embedded server of its own): for tests of the adapter's own client, whose transactions no other test may overlap.
 */
export const mongoServerOfItsOwn = Effect.suspend(() => {
  const external = process.env.MONGODB_URI
  return external === undefined
    ? Effect.map(Effect.orDie(startJongodb()), (server) => server.uri)
    : Effect.succeed(external)
})

/**
 * Gives back the jongodb server's transaction lock (`JongodbDatabase.ts`) if the process `pid`, which a test killed,
 * holds it: as a replica set goes on past a dead client, the run's other tests then need not wait the 30 s it would
 * take to lapse. Nothing to do on a replica set.
 */
export const releaseLockOfKilled = (pid: number) =>
  Effect.promise(async () => {
    const client = await MongoClient.connect(inject("mongoUri"))
    try {
      const lock = client.db("svc_jongodb").collection<{ _id: string; holder: string }>("transaction_lock")
      await lock.updateOne({ _id: "lock", holder: { $regex: `^${pid}:` } }, { $set: { until: 0 } })
    } finally {
      await client.close()
    }
  })
