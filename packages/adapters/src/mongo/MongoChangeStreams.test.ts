/**
 * Change streams wake the waiters where the server serves them, and only there: on the test run's server, whichever
 * it is (a server without them is what the suite runs on: its waiters poll, as they did); and, on a stream the test
 * drives as the driver hands one out, what a broken stream does.
 */
import { assert, describe, it } from "@effect/vitest"
import { EventOutbox } from "@svc/domain/event"
import { StorageChanges } from "@svc/domain/StorageChanges"
import { Context, Duration, Effect, Exit, Layer, Logger } from "effect"
import { type Db, MongoServerError } from "mongodb"
import { eventually } from "../../test/Eventually.ts"
import { testMongoDatabase } from "../../test/TestMongoDatabase.ts"
import { event } from "../contract/Fixtures.ts"
import * as MongoChangeStreams from "./MongoChangeStreams.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { tryMongo } from "./MongoErrors.ts"
import * as MongoStorage from "./MongoStorage.ts"

describe("MongoChangeStreams", () => {
  it.live("tells changes once the server opened a stream, and an event appended then wakes its waiter", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const logger = Logger.make<unknown, void>(({ message }) => {
        lines.push(String((Array.isArray(message) ? message : [message])[0]))
      })
      const context = yield* Layer.build(
        MongoStorage.ports.pipe(Layer.provideMerge(testMongoDatabase("changes")), Layer.provide(Logger.layer([logger])))
      )
      const { db } = Context.get(context, MongoDatabase)
      const changes = Context.get(context, StorageChanges)
      // Whether this server opens a stream at all, asked directly.
      const serves = Exit.isSuccess(yield* Effect.exit(tryMongo(() => db.watch().tryNext())))
      // The layer has found out when it said so.
      const said = yield* eventually(() => lines.find((line) => line.startsWith("MongoDB change streams")), {
        what: "the layer's line on change streams",
        timeout: "10 seconds"
      })
      assert.strictEqual(yield* changes.streaming, serves, said)
      assert.strictEqual(said?.includes("wake the workers"), serves)
      if (!serves) return
      const woken = yield* changes.watch("events")
      yield* EventOutbox.use((outbox) => outbox.append([event(1)])).pipe(Effect.provide(context))
      yield* woken.pipe(Effect.timeout(Duration.seconds(10)), Effect.orDie)
    }).pipe(Effect.scoped)
  )

  it.live(
    "a stream that breaks stops telling changes, and once opened again wakes every waiter for what it missed",
    () =>
      Effect.gen(function* () {
        // A server's stream as the driver hands it out, driven by the test: changes pushed, a failure thrown.
        const waiting: Array<{ resolve: (change: unknown) => void; reject: (error: unknown) => void }> = []
        let opened = 0
        const stream = {
          tryNext: async () => {
            opened++
            return null
          },
          next: () => new Promise((resolve, reject) => waiting.push({ resolve, reject })),
          close: async () => undefined
        }
        const db = { watch: () => stream } as unknown as Db
        const context = yield* Layer.build(
          MongoChangeStreams.layer.pipe(
            Layer.provide(Layer.succeed(MongoDatabase, MongoDatabase.of({ db } as MongoDatabase["Service"]))),
            Layer.provide(Logger.layer([]))
          )
        )
        const changes = Context.get(context, StorageChanges)
        const until = (check: Effect.Effect<boolean>) => eventually(check, { timeout: "10 seconds" })
        yield* until(Effect.sync(() => waiting.length === 1))
        assert.isTrue(yield* changes.streaming)
        const deliveries = yield* changes.watch("deliveries")
        waiting.shift()?.resolve({ operationType: "insert", ns: { db: "svc", coll: "webhook_deliveries" } })
        yield* deliveries.pipe(Effect.timeout("10 seconds"), Effect.orDie)
        const events = yield* changes.watch("events")
        yield* until(Effect.sync(() => waiting.length === 1))
        waiting.shift()?.reject(new MongoServerError({ message: "the stream broke", code: 280 }))
        yield* until(Effect.map(changes.streaming, (streaming) => !streaming))
        assert.strictEqual(opened, 1)
        // Opened again a second later: what changed meanwhile is unknown, so every waiter is woken.
        yield* events.pipe(Effect.timeout("10 seconds"), Effect.orDie)
        assert.strictEqual(opened, 2)
        assert.isTrue(yield* changes.streaming)
      }).pipe(Effect.scoped)
  )
})
