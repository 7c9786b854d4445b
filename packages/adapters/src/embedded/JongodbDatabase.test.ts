/**
 * The layer that stands in for a replica set on jongodb, on the test run's server: each of jongodb's gaps it makes up
 * for, measured where jongodb shows it (decisions 0062, 0097). Each test fails when its part of the layer is gone.
 */
import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { inject } from "vitest"
import { eventually } from "../../test/Eventually.ts"
import { MongoDatabase } from "../mongo/MongoDatabase.ts"
import { tryMongo } from "../mongo/MongoErrors.ts"
import * as JongodbDatabase from "./JongodbDatabase.ts"

const standIn = () => JongodbDatabase.layer({ uri: inject("mongoUri"), database: `standin_${randomUUID()}` })

/** Two connections to one fresh database, as two API processes have. */
const twoProcesses = Effect.gen(function* () {
  const layer = JongodbDatabase.layer({ uri: inject("mongoUri"), database: `standin_${randomUUID()}` })
  const first = Context.get(yield* Layer.build(Layer.fresh(layer)), MongoDatabase)
  const second = Context.get(yield* Layer.build(Layer.fresh(layer)), MongoDatabase)
  return [first, second] as const
})

describe("JongodbDatabase", () => {
  it.live("stands in on jongodb only, and there polls the server's heartbeat (jongodb breaks the streamed one)", () => {
    // Heartbeats every 500 ms rather than 10 s, so some are seen within the test.
    const uri = new URL(inject("mongoUri"))
    uri.searchParams.set("heartbeatFrequencyMS", "500")
    return Effect.gen(function* () {
      const context = yield* Layer.build(
        JongodbDatabase.layerDetected({ uri: uri.toString(), database: `standin_${randomUUID()}` })
      )
      const { client } = Context.get(context, MongoDatabase)
      const jongodb = yield* JongodbDatabase.isJongodb(client)
      assert.strictEqual(JongodbDatabase.standsIn(context), jongodb)
      // Polled: each heartbeat a request of its own, not awaited; a replica set's are streamed (awaited).
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
    }).pipe(Effect.scoped)
  })

  it.live("transactions waiting together commit together; one that fails fails alone, and each answers its own", () =>
    Effect.gen(function* () {
      const { db, transaction } = yield* MongoDatabase
      const docs = db.collection<{ _id: string }>("together")
      yield* tryMongo(() => docs.insertOne({ _id: "taken" }))
      const outcomes = yield* Effect.forEach(
        Array.from({ length: 40 }, (_, index) => index),
        (index) =>
          Effect.exit(
            transaction((session) =>
              // The seventh inserts an id that exists: its transaction fails, no other's.
              tryMongo(() => docs.insertOne({ _id: index === 7 ? "taken" : `doc-${index}` }, { session })).pipe(
                Effect.as(index)
              )
            )
          ),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(
        outcomes.map((exit) => (Exit.isSuccess(exit) ? exit.value : "failed")),
        Array.from({ length: 40 }, (_, index) => (index === 7 ? "failed" : index))
      )
      const stored = yield* tryMongo(() => docs.find({}).toArray())
      assert.strictEqual(stored.length, 40)
    }).pipe(Effect.provide(standIn()))
  )

  it.live(
    "keeps every write one process makes outside a transaction while another commits transactions on that collection",
    () =>
      Effect.gen(function* () {
        const [first, second] = yield* twoProcesses
        const name = "shared"
        // A collection large enough that a commit takes a while (jongodb merges a copy of it).
        yield* tryMongo(() =>
          first.db
            .collection(name)
            .insertMany(
              Array.from({ length: 1_000 }, (_, index) => ({ _id: `seed-${index}`, pad: "x".repeat(200) }) as never)
            )
        )
        const transactions = Effect.forEach(
          Array.from({ length: 10 }, (_, index) => index),
          (index) =>
            first.transaction((session) =>
              tryMongo(() => first.db.collection(name).insertOne({ _id: `txn-${index}` } as never, { session }))
            ),
          { discard: true }
        )
        const outside = Effect.forEach(
          Array.from({ length: 100 }, (_, index) => index),
          (index) => tryMongo(() => second.db.collection(name).insertOne({ _id: `plain-${index}` } as never)),
          { discard: true, concurrency: 4 }
        )
        yield* Effect.all([transactions, outside], { concurrency: 2, discard: true })
        const kept = yield* tryMongo(() => second.db.collection(name).countDocuments({}))
        assert.strictEqual(kept, 1_000 + 10 + 100)
      }).pipe(Effect.scoped),
    60_000
  )

  it.live(
    "concurrent takers of the next free document (a findOneAndUpdate in order) of two processes each get one of their own",
    () =>
      Effect.gen(function* () {
        const [first, second] = yield* twoProcesses
        const ids = Array.from({ length: 100 }, (_, index) => `doc-${String(index).padStart(3, "0")}`)
        yield* tryMongo(() =>
          first.db
            .collection<{ _id: string; free: boolean }>("free")
            .insertMany(ids.map((_id) => ({ _id, free: true })))
        )
        // Without the layer's turns, three to six takers in a hundred got a document another taker got too.
        const taken = yield* Effect.forEach(
          ids,
          (_, taker) =>
            tryMongo(() =>
              (taker % 2 === 0 ? first : second).db
                .collection<{ _id: string; free: boolean }>("free")
                .findOneAndUpdate(
                  { free: true },
                  { $set: { free: false } },
                  { sort: { _id: 1 }, returnDocument: "after" }
                )
            ),
          { concurrency: "unbounded" }
        )
        const got = taken.flatMap((doc) => (doc === null ? [] : [doc._id]))
        assert.strictEqual(new Set(got).size, got.length, "a document was taken twice")
        assert.strictEqual(got.length, ids.length)
      }).pipe(Effect.scoped)
  )

  it.live("an unordered insertMany with a duplicate inserts every other document, then answers the duplicate", () =>
    Effect.gen(function* () {
      const { db } = yield* MongoDatabase
      const docs = db.collection<{ _id: string }>("unordered")
      yield* tryMongo(() => docs.insertOne({ _id: "b" }))
      const inserted = yield* tryMongo(() =>
        docs.insertMany([{ _id: "a" }, { _id: "b" }, { _id: "c" }], { ordered: false })
      ).pipe(Effect.flip)
      assert.strictEqual(inserted._tag, "DuplicateKey")
      const ids = (yield* tryMongo(() => docs.find({}).sort({ _id: 1 }).toArray())).map((doc) => doc._id)
      assert.deepStrictEqual(ids, ["a", "b", "c"])
    }).pipe(Effect.provide(standIn()))
  )
})
