/**
 * `MongoDatabase` on jongodb, the MongoDB-compatible server the tests run on (`Jongodb.ts`): the one place where what
 * jongodb lacks is made up for, so that the MongoDB adapter is written for a replica set alone (decision 0097).
 * jongodb 0.1.6, measured (`JongodbDatabase.test.ts`, decisions 0017, 0062):
 * - its streaming heartbeat breaks under load ("Server ended moreToCome unexpectedly"), which clears the driver's pool:
 *   the client polls instead;
 * - overlapping transactions break the connection, and it detects no write conflicts: transactions run one at a time,
 *   in this process and across processes (a lock document on the server, taken with a conditional `updateOne`, which
 *   jongodb applies atomically; for 30 s at most should its holder die);
 * - a commit merges a copy of each collection it touched, taken before the merge, so a write landing on one of them
 *   meanwhile is lost; and a conditional `findOneAndUpdate` is not atomic (two of ten concurrent takers may both win):
 *   every write made outside a transaction takes the same lock (but for plain writes to the collections no
 *   transaction writes, `untransacted`);
 * - an unordered `insertMany` stops at the first duplicate: it is inserted one document at a time;
 * - a commit costs more than linear time in the size of what it touched: transactions waiting in a process commit
 *   together, each one's work in turn in one session (at most 64), as if each ran alone in that order. Should that
 *   commit fail, each runs again alone, so only the one at fault fails (and the others' work ran twice, as a replica
 *   set runs a transaction again after a write conflict);
 * - it has no change streams: the adapter finds that out and polls (`MongoChangeStreams.ts`).
 */
import { randomUUID } from "node:crypto"
import { Cause, Context, Effect, Exit, Layer, Semaphore } from "effect"
import type { ClientSession, Collection, Db, MongoClient } from "mongodb"
import { setOrMake } from "../mongo/Leases.ts"
import {
  clientOptionsOf,
  connect,
  databaseOf,
  type MongoConnection,
  MongoDatabase,
  MongoUnreachable
} from "../mongo/MongoDatabase.ts"
import { isDuplicateKey, type MongoFailure, tryQuietly } from "../mongo/MongoErrors.ts"
import { type TransactionRunner, tryTransaction } from "../mongo/MongoTransaction.ts"

/** The lock document of a jongodb server: who writes (`pid:uuid`, so a killed process's is known), until when (ms). */
interface TransactionLock {
  _id: string
  holder: string
  until: number
}

/** A transaction's work waiting for the next joint commit (its caller's context provided), and where its end goes. */
interface Waiting {
  readonly work: (session: ClientSession) => Effect.Effect<unknown, unknown>
  readonly done: (exit: Exit.Exit<unknown, unknown>) => void
}

/** One client's turn-taking on its server. */
interface Serial {
  readonly client: MongoClient
  readonly queue: Semaphore.Semaphore
  readonly lock: Collection<TransactionLock>
  readonly holder: string
  readonly waiting: Array<Waiting>
  /** Writes waiting for, or holding, the queue. */
  pending: number
  /** Whether this client holds the server's lock, and since when. */
  locked: boolean
  since: number
  /** The last failure to take the lock, and when: writes queued behind it meanwhile fail with it at once. */
  unreachable: { readonly failure: MongoFailure; readonly at: number } | undefined
  committing: boolean
}

/** How long a lock holds should its holder die: far above one joint commit, so none lapses under a live holder. */
const lockMillis = 30_000

/** How long a busy client keeps the lock before it lets other processes take a turn. */
const holdMillis = 50

/**
 * How long writes queued behind a failed take of the lock fail with its failure rather than try in turn: each would
 * otherwise wait the driver's whole server selection, one after the other (a dozen writes, minutes).
 */
const downMillis = 1_000

/** Most transactions one joint commit carries. */
const jointMax = 64

const pause = () => Effect.sleep(1 + Math.floor(Math.random() * 4))

/** Takes the server's lock for `serial` (waiting while another client holds it), or keeps it while its turn lasts. */
const takeServer = (serial: Serial) =>
  Effect.gen(function* () {
    if (serial.locked && Date.now() - serial.since < holdMillis) return
    if (serial.locked) {
      yield* giveServerBack(serial)
      yield* pause()
    }
    const down = serial.unreachable
    if (down !== undefined && Date.now() - down.at < downMillis) return yield* Effect.fail(down.failure)
    for (;;) {
      const now = Date.now()
      // Taken when free, or made when missing (a jongodb started again is empty).
      const taken = yield* setOrMake(
        serial.lock,
        { _id: "lock", until: { $lte: now } },
        { holder: serial.holder, until: now + lockMillis }
      ).pipe(
        Effect.tapError((failure) =>
          Effect.sync(() => {
            serial.unreachable = { failure, at: Date.now() }
          })
        )
      )
      if (taken) break
      yield* pause()
    }
    serial.unreachable = undefined
    serial.locked = true
    serial.since = Date.now()
  })

const giveServerBack = (serial: Serial) =>
  Effect.suspend(() => {
    serial.locked = false
    return tryQuietly(() => serial.lock.updateOne({ _id: "lock", holder: serial.holder }, { $set: { until: 0 } }))
  })

/**
 * Runs `effect` alone on `serial`'s server: one at a time in this process, under the server's lock, which this
 * process keeps while more of its writes wait (for `holdMillis` at most) and gives back when none does.
 */
const alone = <A, E, R>(serial: Serial, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | MongoFailure, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      serial.pending++
    }),
    () => serial.queue.withPermits(1)(Effect.andThen(takeServer(serial), effect)),
    () =>
      Effect.suspend(() => {
        serial.pending--
        if (serial.pending > 0 || !serial.locked) return Effect.void
        return serial.queue.withPermits(1)(
          Effect.suspend(() => (serial.pending === 0 && serial.locked ? giveServerBack(serial) : Effect.void))
        )
      })
  )

/** Runs one driver write alone, answering or throwing what it did. */
const writeAlone = async <A>(serial: Serial, write: () => Promise<A>): Promise<A> => {
  const exit = await Effect.runPromiseExit(alone(serial, Effect.tryPromise({ try: write, catch: (error) => error })))
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}

/** An unordered `insertMany`, one document at a time: the others are inserted, then the first duplicate is thrown. */
const insertEach = async (collection: Collection, docs: ReadonlyArray<object>, options: object) => {
  let duplicate: unknown
  let inserted = 0
  for (const doc of docs) {
    try {
      await collection.insertOne(doc, options)
      inserted++
    } catch (error) {
      if (!isDuplicateKey(error)) throw error
      duplicate ??= error
    }
  }
  if (duplicate !== undefined) throw duplicate
  return { acknowledged: true, insertedCount: inserted }
}

/** The write methods of a collection, and where each takes its options: each call without a session runs alone. */
const writeMethods = new Map<PropertyKey, number>([
  ["insertOne", 1],
  ["insertMany", 1],
  ["updateOne", 2],
  ["updateMany", 2],
  ["replaceOne", 2],
  ["deleteOne", 1],
  ["deleteMany", 1],
  ["findOneAndUpdate", 2],
  ["findOneAndReplace", 2],
  ["findOneAndDelete", 1],
  ["bulkWrite", 1]
])

/** The options of a call of write `method`. */
const optionsOf = (method: PropertyKey, args: ReadonlyArray<unknown>): { session?: unknown; ordered?: unknown } => {
  const options = args[writeMethods.get(method) ?? args.length]
  return typeof options === "object" && options !== null ? options : {}
}

/**
 * The collections the adapter never writes in a transaction: a commit merges only the collections its transaction
 * changed, so their plain writes are never lost and need not wait for a commit. They are the hot ones of sending (the
 * transaction journal, the nonces it takes, the relayer leases), of the deposit follower's cursor, of sign-in and of idempotency keys. A
 * `findOneAndUpdate` on them still takes its turn (it is not atomic on its own), and a write to one of them in a
 * transaction fails loudly: it would mean the list is wrong.
 */
const untransacted = new Set([
  "chain_transactions",
  "chain_nonces",
  "relayer_leases",
  "chain_followers",
  "siwe_nonces",
  "idempotency_keys"
])

/** The writes that are atomic on jongodb only when they take their turn. */
const readThenWrite = new Set<PropertyKey>(["findOneAndUpdate", "findOneAndReplace", "findOneAndDelete"])

/** `collection` with every write outside a transaction run alone, and unordered inserts one at a time. */
const guarded = (serial: Serial, collection: Collection): Collection => {
  const hot = untransacted.has(collection.collectionName)
  return new Proxy(collection, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target)
      if (typeof value !== "function") return value
      if (!writeMethods.has(property)) return value.bind(target)
      return (...args: Array<unknown>) => {
        const options = optionsOf(property, args)
        const write =
          property === "insertMany" && options.ordered === false
            ? () => insertEach(target, args[0] as ReadonlyArray<object>, options)
            : () => value.apply(target, args)
        if (options.session !== undefined) {
          if (hot) {
            return Promise.reject(
              new Error(`${target.collectionName} is written in a transaction: take it off JongodbDatabase's list`)
            )
          }
          // In a transaction, which runs alone already.
          return write()
        }
        return hot && !readThenWrite.has(property) ? write() : writeAlone(serial, write)
      }
    }
  })
}

/** `db` with its collections guarded. */
const guardedDb = (serial: Serial, db: Db): Db =>
  new Proxy(db, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target)
      if (property === "collection" && typeof value === "function") {
        return (...args: Array<unknown>) => guarded(serial, value.apply(target, args))
      }
      return typeof value === "function" ? value.bind(target) : value
    }
  })

/** Runs `works` one after the other in one transaction; fails with the first failure, all of it aborted. */
const jointly = (serial: Serial, works: ReadonlyArray<Waiting>) =>
  tryTransaction(serial.client)((session) => Effect.forEach(works, (waiting) => waiting.work(session)))

/** Commits what waits, jointly, until nothing does. */
const commitWaiting = (serial: Serial) =>
  Effect.gen(function* () {
    while (serial.waiting.length > 0) {
      const joint = serial.waiting.splice(0, jointMax)
      const together = yield* Effect.exit(alone(serial, jointly(serial, joint)))
      if (Exit.isSuccess(together)) {
        for (const [index, waiting] of joint.entries()) waiting.done(Exit.succeed(together.value[index]))
      } else if (joint.length === 1) {
        joint[0]?.done(together)
      } else {
        // One of them failed the joint commit: each alone, so only that one fails.
        for (const waiting of joint) {
          waiting.done(yield* Effect.exit(alone(serial, tryTransaction(serial.client)(waiting.work))))
        }
      }
    }
  })

/** Starts committing unless a commit is under way (it takes what waits when it ends). */
const commitSoon = (serial: Serial): void => {
  if (serial.committing || serial.waiting.length === 0) return
  serial.committing = true
  Effect.runFork(
    commitWaiting(serial).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          serial.committing = false
          commitSoon(serial)
        })
      )
    )
  )
}

/** Transactions on jongodb: queued for the next joint commit, their caller's context kept. */
const jointTransactions =
  (serial: Serial): TransactionRunner =>
  <A, E, R>(work: (session: ClientSession) => Effect.Effect<A, E, R>) =>
    Effect.flatMap(Effect.context<R>(), (context) =>
      Effect.callback<A, E | MongoFailure>((resume) => {
        serial.waiting.push({
          work: (session) => Effect.provideContext(work(session), context),
          done: (exit) => resume(exit as Exit.Exit<A, E | MongoFailure>)
        })
        commitSoon(serial)
      })
    )

/** `MongoDatabase` on the jongodb server at `connection.uri`. */
export const layer = (connection: MongoConnection) =>
  Layer.effect(
    MongoDatabase,
    Effect.map(
      connect(connection, { ...clientOptionsOf(connection.timeouts), serverMonitoringMode: "poll" }),
      (client) => {
        const serial: Serial = {
          client,
          queue: Semaphore.makeUnsafe(1),
          lock: client.db("svc_jongodb").collection<TransactionLock>("transaction_lock"),
          holder: `${process.pid}:${randomUUID()}`,
          waiting: [],
          pending: 0,
          locked: false,
          since: 0,
          unreachable: undefined,
          committing: false
        }
        return MongoDatabase.of({
          client,
          db: guardedDb(serial, databaseOf(client, connection)),
          transaction: jointTransactions(serial)
        })
      }
    )
  )

/** Whether the server at the end of `client` is jongodb (its `buildInfo` version names it). */
export const isJongodb = (client: MongoClient): Effect.Effect<boolean, MongoUnreachable> =>
  Effect.tryPromise({
    try: () => client.db("admin").command({ buildInfo: 1 }),
    catch: (error) => new MongoUnreachable({ message: `MongoDB did not answer buildInfo: ${String(error)}` })
  }).pipe(Effect.map(({ version }) => String(version).includes("jongodb")))

/**
 * `MongoDatabase` on the server at `connection.uri`: the adapter's own (`MongoDatabase.layer`) on MongoDB, this
 * stand-in layer on jongodb, told apart by asking the server. What composition roots and tests use.
 */
export const layerDetected = (connection: MongoConnection): Layer.Layer<MongoDatabase, MongoUnreachable> =>
  Layer.unwrap(
    Effect.scoped(
      Effect.map(Effect.flatMap(connect(connection), isJongodb), (jongodb) =>
        jongodb ? layer(connection) : MongoDatabase.layer(connection)
      )
    )
  )

/** The `MongoDatabase` a context holds is this stand-in's (for tests that check which one runs). */
export const standsIn = (context: Context.Context<MongoDatabase>): boolean =>
  Context.get(context, MongoDatabase).client.options.serverMonitoringMode === "poll"
