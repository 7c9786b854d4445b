import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { inject } from "vitest"
import { eventually } from "../../test/Eventually.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { inTransaction, transactionsSerialized } from "./MongoTransaction.ts"

describe("MongoDatabase", () => {
  it.live("queues transactions on jongodb, which cannot overlap them, and polls its heartbeat; only there", () => {
    // Heartbeats every 500 ms rather than 10 s, so some are seen within the test.
    const uri = new URL(inject("mongoUri"))
    uri.searchParams.set("heartbeatFrequencyMS", "500")
    return Effect.gen(function* () {
      const { client } = yield* MongoDatabase
      const { version } = yield* Effect.promise(() => client.db("admin").command({ buildInfo: 1 }))
      const jongodb = String(version).includes("jongodb")
      assert.strictEqual(transactionsSerialized(client), jongodb)
      // jongodb breaks the streaming heartbeat under load, which would clear the pool: it is polled (each heartbeat a
      // request of its own, not awaited); MongoDB streams (awaited).
      const awaited: Array<boolean> = []
      const heard = (event: { readonly awaited: boolean }) => awaited.push(event.awaited)
      client.on("serverHeartbeatStarted", heard)
      yield* eventually(() => awaited.length >= 2, { what: "two heartbeats", timeout: "5 seconds" })
      client.off("serverHeartbeatStarted", heard)
      assert.isAtLeast(awaited.length, 2)
      assert.isTrue(
        awaited.every((one) => one === !jongodb),
        `heartbeats awaited: ${awaited.join(", ")}`
      )
    }).pipe(Effect.provide(MongoDatabase.layer({ uri: uri.toString(), database: `db_${randomUUID()}` })))
  })

  it.live("transactions waiting together commit together; one that fails fails alone, and each answers its own", () =>
    Effect.gen(function* () {
      const { client, db } = yield* MongoDatabase
      const docs = db.collection<{ _id: string }>("together")
      yield* Effect.promise(() => docs.insertOne({ _id: "taken" }))
      const outcomes = yield* Effect.forEach(
        Array.from({ length: 40 }, (_, index) => index),
        (index) =>
          Effect.exit(
            inTransaction(client, async (session) => {
              // The seventh inserts an id that exists: its transaction fails, no other's.
              await docs.insertOne({ _id: index === 7 ? "taken" : `doc-${index}` }, { session })
              return index
            })
          ),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(
        outcomes.map((exit) => (Exit.isSuccess(exit) ? exit.value : "failed")),
        Array.from({ length: 40 }, (_, index) => (index === 7 ? "failed" : index))
      )
      const stored = yield* Effect.promise(() => docs.find({}).toArray())
      assert.strictEqual(stored.length, 40)
    }).pipe(Effect.provide(MongoDatabase.layer({ uri: inject("mongoUri"), database: `db_${randomUUID()}` })))
  )

  it.live(
    "keeps every write one process makes outside a transaction while another commits transactions on that collection",
    () => {
      const database = `db_${randomUUID()}`
      const layer = MongoDatabase.layer({ uri: inject("mongoUri"), database })
      return Effect.gen(function* () {
        // Two connections to one database, as two API processes have.
        const first = Context.get(yield* Layer.build(Layer.fresh(layer)), MongoDatabase)
        const second = Context.get(yield* Layer.build(Layer.fresh(layer)), MongoDatabase)
        const name = "shared"
        // A collection large enough that a commit takes a while (jongodb merges a copy of it).
        yield* Effect.promise(() =>
          first.db
            .collection(name)
            .insertMany(
              Array.from({ length: 1_000 }, (_, index) => ({ _id: `seed-${index}`, pad: "x".repeat(200) }) as never)
            )
        )
        const transactions = Effect.forEach(
          Array.from({ length: 10 }, (_, index) => index),
          (index) =>
            inTransaction(first.client, (session) =>
              first.db.collection(name).insertOne({ _id: `txn-${index}` } as never, { session })
            ),
          { discard: true }
        )
        const outside = Effect.forEach(
          Array.from({ length: 100 }, (_, index) => index),
          (index) => Effect.promise(() => second.db.collection(name).insertOne({ _id: `plain-${index}` } as never)),
          { discard: true, concurrency: 4 }
        )
        yield* Effect.all([transactions, outside], { concurrency: 2, discard: true })
        const kept = yield* Effect.promise(() => second.db.collection(name).countDocuments({}))
        assert.strictEqual(kept, 1_000 + 10 + 100)
      }).pipe(Effect.scoped)
    },
    60_000
  )
})
