/**
 * `StorageChanges` on MongoDB: one change stream a process, on the outbox, the webhook deliveries and the issued
 * requests, wakes whoever waits on them (the dispatcher's fan-out and delivery loops, replays waiting for an outcome;
 * decision 0096), so they poll once a second instead of every 50 or 100 ms.
 *
 * A server without change streams (a standalone server, or one that does not implement them) refuses to open one:
 * changes are then not told, and the waiters poll as before. Changes are told only once the server has accepted the
 * stream, and not any more from the moment it fails; it is opened again after a while, backing off to five minutes.
 * A stream that broke and was opened again wakes every waiter, for what it may have missed meanwhile. The driver
 * resumes a stream across a failover by itself, from the oplog (docs/operations.md: the oplog window).
 */
import { type Changes, type ChangeTopic, StorageChanges } from "@svc/domain/StorageChanges"
import { Cause, Deferred, Duration, Effect, Layer } from "effect"
import type { ChangeStreamDocument, Db } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { tryMongo, tryQuietly } from "./MongoErrors.ts"
import { outboxCollection } from "./MongoEventOutbox.ts"
import { issuedCollection } from "./MongoIssuedRequestStore.ts"

/** The collections watched, and what their changes wake. */
const topicOf: Readonly<Record<string, ChangeTopic>> = {
  [outboxCollection]: "events",
  webhook_deliveries: "deliveries",
  [issuedCollection]: "requests"
}

/** Only which collection changed travels: the documents stay on the server. */
const pipeline = [{ $match: { "ns.coll": { $in: Object.keys(topicOf) } } }, { $project: { ns: 1, operationType: 1 } }]

/** How long the first wait is before a stream that failed is opened again; it doubles up to `reopenAtMost`. */
const reopenAfter = Duration.seconds(1)
const reopenAtMost = Duration.minutes(5)

/** The waiters of each topic: one deferred a topic, completed and replaced at each change. */
const makeSignals = () => {
  const waiting = new Map<ChangeTopic, Deferred.Deferred<void>>()
  const current = (topic: ChangeTopic) => {
    const found = waiting.get(topic)
    if (found !== undefined) return found
    const made = Deferred.makeUnsafe<void>()
    waiting.set(topic, made)
    return made
  }
  const signal = (topic: ChangeTopic) => {
    const woken = current(topic)
    waiting.delete(topic)
    Deferred.doneUnsafe(woken, Effect.void)
  }
  return { current, signal, signalAll: () => Object.values(topicOf).forEach(signal) }
}

/** What a stream failed with, on one line. */
const reasonOf = (error: unknown): string => {
  const text =
    typeof error === "object" && error !== null && "reason" in error
      ? String(error.reason)
      : error instanceof Error
        ? error.message
        : String(error)
  return text.split("\n")[0] ?? ""
}

/** Follows one stream on `db` until it fails: told from its first answer on. */
const follow = (db: Db, signals: ReturnType<typeof makeSignals>, told: (streaming: boolean) => void) =>
  Effect.acquireUseRelease(
    Effect.sync(() => db.watch<Record<string, never>, ChangeStreamDocument>(pipeline, { maxAwaitTimeMS: 1_000 })),
    (stream) =>
      Effect.gen(function* () {
        const wake = (change: ChangeStreamDocument | null) => {
          const coll = change !== null && "ns" in change && "coll" in change.ns ? change.ns.coll : undefined
          const topic = coll === undefined ? undefined : topicOf[coll]
          if (topic !== undefined) signals.signal(topic)
        }
        // The server's first answer: the stream is open (or refused, failing here).
        wake(yield* tryMongo(() => stream.tryNext()))
        told(true)
        signals.signalAll()
        yield* Effect.logInfo("MongoDB change streams wake the workers")
        for (;;) wake(yield* tryMongo(() => stream.next()))
      }),
    (stream) => tryQuietly(() => stream.close())
  )

/** Changes told by a change stream on the database, while the server serves one. */
export const layer = Layer.effect(
  StorageChanges,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const signals = makeSignals()
    let streaming = false
    const told = (now: boolean) => {
      streaming = now
    }
    const reopening = Effect.gen(function* () {
      let wait = Duration.toMillis(reopenAfter)
      let said: string | undefined
      for (;;) {
        const exit = yield* Effect.exit(follow(db, signals, told))
        const wasStreaming = streaming
        told(false)
        if (wasStreaming) wait = Duration.toMillis(reopenAfter)
        const reason = exit._tag === "Failure" ? reasonOf(Cause.squash(exit.cause)) : "ended"
        if (said === undefined || wasStreaming) {
          yield* Effect.logInfo(`MongoDB change streams are not available (${reason}); workers poll meanwhile`)
        }
        said = reason
        yield* Effect.sleep(Duration.millis(wait))
        wait = Math.min(Duration.toMillis(reopenAtMost), wait * 2)
      }
    })
    yield* Effect.forkScoped(reopening)
    return {
      streaming: Effect.sync(() => streaming),
      watch: (topic) => Effect.sync(() => Deferred.await(signals.current(topic)))
    } satisfies Changes
  })
)
