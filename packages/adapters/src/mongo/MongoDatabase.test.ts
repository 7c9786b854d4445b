/**
 * The adapter's own client and transactions, as a replica set gets them (decision 0096): what goes on the wire, what
 * a transaction does after a write conflict, and what each driver error becomes. On a server of the test's own, so
 * that no other test's transactions overlap these.
 */
import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { StorageUnavailable } from "@svc/domain/StorageHealth"
import { Cause, Effect, Exit, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { type CommandStartedEvent, MongoClient, MongoServerError } from "mongodb"
import { mongoServerOfItsOwn } from "../../test/TestMongoDatabase.ts"
import { clientOptionsOf, connect, defaultMongoTimeouts } from "./MongoDatabase.ts"
import { DuplicateKey, failureOf, tryMongo, WriteConflict } from "./MongoErrors.ts"
import { transactionOn } from "./MongoTransaction.ts"

/** A client with the adapter's options, every command it sends recorded. */
const recordingClient = Effect.gen(function* () {
  const uri = yield* mongoServerOfItsOwn
  const client = yield* connect({ uri }, { ...clientOptionsOf(), monitorCommands: true })
  const sent: Array<CommandStartedEvent> = []
  client.on("commandStarted", (event) => sent.push(event))
  return { client, db: client.db(`db_${randomUUID()}`), sent }
})

describe("MongoDatabase", () => {
  it.live("reads and writes at majority, retries writes, and commits transactions at majority: on the wire", () =>
    Effect.gen(function* () {
      const { client, db, sent } = yield* recordingClient
      const docs = db.collection<{ _id: string; n?: number }>("wire")
      yield* tryMongo(() => docs.insertOne({ _id: "a" }))
      yield* tryMongo(() => docs.findOne({ _id: "a" }))
      yield* transactionOn(client)((session) =>
        tryMongo(() => docs.updateOne({ _id: "a" }, { $set: { n: 1 } }, { session }))
      )
      const named = (name: string) => sent.filter((event) => event.commandName === name).map((event) => event.command)
      const [insert] = named("insert")
      assert.deepStrictEqual(insert?.writeConcern, { w: "majority", j: true })
      // A retryable write carries a transaction number, so the driver may send it again across a failover.
      assert.isDefined(insert?.txnNumber)
      assert.deepStrictEqual(named("find")[0]?.readConcern, { level: "majority" })
      const [update] = named("update")
      assert.strictEqual(update?.startTransaction, true)
      assert.deepStrictEqual(update?.readConcern, { level: "majority" })
      assert.strictEqual(named("commitTransaction")[0]?.writeConcern?.w, "majority")
      // A primary is waited for longer than an election takes.
      assert.strictEqual(client.options.serverSelectionTimeoutMS, defaultMongoTimeouts.serverSelectionMillis)
      assert.isAtLeast(defaultMongoTimeouts.serverSelectionMillis, 30_000)
    }).pipe(Effect.scoped)
  )

  it.live("a transaction that met a write conflict runs again from the start; what it wrote before is gone", () =>
    Effect.gen(function* () {
      const { client, db } = yield* recordingClient
      const docs = db.collection<{ _id: string; run: number }>("again")
      let runs = 0
      const answered = yield* transactionOn(client)((session) =>
        Effect.gen(function* () {
          runs++
          yield* tryMongo(() => docs.insertOne({ _id: `run-${runs}`, run: runs }, { session }))
          // The first run fails as the server fails a conflict; the second dies of one, as a store in a unit does.
          if (runs === 1) return yield* new WriteConflict({ cause: "first" })
          if (runs === 2) return yield* Effect.die(new WriteConflict({ cause: "second" }))
          return runs
        })
      )
      assert.strictEqual(answered, 3)
      const stored = yield* tryMongo(() => docs.find({}).toArray())
      assert.deepStrictEqual(
        stored.map((doc) => doc._id),
        ["run-3"]
      )
    }).pipe(Effect.scoped)
  )

  it.effect("a conflict that outlasts the tries is StorageUnavailable; any other failure is not run again", () =>
    Effect.gen(function* () {
      // Nothing reaches a server: a transaction with no write starts and aborts in the driver alone.
      const client = new MongoClient("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=100")
      let runs = 0
      const conflicting = yield* transactionOn(client)(() =>
        Effect.suspend(() => {
          runs++
          return Effect.fail(new WriteConflict({ cause: "always" }))
        })
      ).pipe(Effect.flip, Effect.forkChild)
      yield* TestClock.adjust("1 minute")
      const outlasted = yield* Fiber.join(conflicting)
      assert.instanceOf(outlasted, StorageUnavailable)
      assert.strictEqual(runs, 8)
      runs = 0
      const refused = yield* transactionOn(client)(() =>
        Effect.suspend(() => {
          runs++
          return Effect.fail("refused" as const)
        })
      ).pipe(Effect.exit)
      assert.deepStrictEqual(refused, Exit.fail("refused"))
      assert.strictEqual(runs, 1)
    })
  )

  it.live("driver errors are typed: a duplicate key, an election, a lost server; a bad command stays a defect", () =>
    Effect.gen(function* () {
      const { db } = yield* recordingClient
      const docs = db.collection<{ _id: string }>("errors")
      yield* tryMongo(() => docs.insertOne({ _id: "x" }))
      const duplicate = yield* tryMongo(() => docs.insertOne({ _id: "x" })).pipe(Effect.flip)
      assert.instanceOf(duplicate, DuplicateKey)
      // What a member that stepped down answers (NotWritablePrimary), and a transient transaction error.
      assert.instanceOf(failureOf(new MongoServerError({ message: "not primary", code: 10107 })), StorageUnavailable)
      const transient = new MongoServerError({ message: "conflict", code: 251 })
      transient.addErrorLabel("TransientTransactionError")
      assert.instanceOf(failureOf(transient), WriteConflict)
      // No server there: the driver connects on first use and finds none within the selection timeout.
      const lost = new MongoClient("mongodb://127.0.0.1:1/", { serverSelectionTimeoutMS: 100 })
      const away = yield* tryMongo(() => lost.db("x").collection("y").findOne({})).pipe(Effect.flip)
      assert.instanceOf(away, StorageUnavailable)
      const bad = yield* tryMongo(() => db.command({ noSuchCommand: 1 })).pipe(Effect.exit)
      assert.isTrue(Exit.isFailure(bad) && Cause.hasDies(bad.cause), String(bad))
    }).pipe(Effect.scoped)
  )
})
