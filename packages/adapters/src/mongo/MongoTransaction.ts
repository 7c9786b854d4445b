/**
 * One MongoDB transaction as an Effect: the session is opened for the work and always closed. Work that must be
 * all-or-nothing (a state change and the events reporting it) goes through here.
 *
 * On jongodb (embedded mode, tests) transactions run one at a time: overlapping ones were seen to end with the pool
 * cleared ("Server ended moreToCome unexpectedly", which the driver raises in its streaming heartbeat, so jongodb is
 * now polled: `MongoDatabase`), it does not detect write conflicts, so overlapping transactions of two processes can
 * lose one's writes, and its transactions cost time in proportion to the database's size
 * (docs/decisions/0017, 0060). On one client a queue orders them; across processes a lock document on the server (taken
 * with a conditional `updateOne`, which jongodb applies atomically, for 30 s at most should its holder die) does.
 *
 * Writes outside transactions take the same lock there (`guardWrites`): jongodb commits a transaction by merging it
 * into a copy of each collection it touched, taken before the merge, so a write that lands on one of those collections
 * during a commit is lost (a claim, say, after which the claimer's record was refused; decision 0062).
 * `MongoDatabase` registers a jongodb client here; on MongoDB transactions and writes run concurrently.
 *
 * A jongodb commit costs more than linear time in the size of the collections it touched (its merge compares them
 * whole), so one at a time would not keep up with many PUTs. Transactions waiting in a process therefore commit
 * together: the queue's next commit runs every waiting transaction's work in one session, one after the other, as if
 * each ran alone in turn. Should the joint commit fail, each runs again alone, so only the one at fault fails.
 */
import { randomUUID } from "node:crypto"
import { Cause, Context, Effect, Exit, Semaphore } from "effect"
import type { ClientSession, Collection, Db, MongoClient } from "mongodb"
import { setOrMake } from "./Leases.ts"

/** The lock document of a jongodb server: who runs a transaction, until when (epoch ms). */
interface TransactionLock {
  _id: string
  holder: string
  until: number
}

/** A transaction's work waiting for the next joint commit, and where its outcome goes. */
interface Waiting {
  readonly work: (session: ClientSession) => Promise<unknown>
  readonly done: (exit: Exit.Exit<unknown, unknown>) => void
}

interface Serialized {
  readonly queue: Semaphore.Semaphore
  readonly lock: Collection<TransactionLock>
  readonly holder: string
  readonly waiting: Array<Waiting>
  committing: boolean
}

const serialized = new WeakMap<MongoClient, Serialized>()

/**
 * How long a transaction lock holds should its holder die without giving it back: far above one transaction (0.8 s at
 * most on a full jongodb, decision 0017), since a lock that lapses under a live holder would let two overlap.
 */
const lockMillis = 30_000

/**
 * Makes transactions on `client` run one at a time, in this process and against every other client of the same
 * server that does the same (for a server that cannot overlap them).
 */
export const serializeTransactions = (client: MongoClient): void => {
  if (serialized.has(client)) return
  serialized.set(client, {
    queue: Semaphore.makeUnsafe(1),
    lock: client.db("svc_jongodb").collection<TransactionLock>("transaction_lock"),
    holder: randomUUID(),
    waiting: [],
    committing: false
  })
}

/** Takes the server's transaction lock for `serial`'s client, waiting while another client holds it. */
const lockServer = (serial: Serialized) =>
  Effect.promise(async () => {
    for (;;) {
      const now = Date.now()
      // Taken when free, or made when missing (a jongodb started again is empty).
      const taken = await setOrMake(
        serial.lock,
        { _id: "lock", until: { $lte: now } },
        { holder: serial.holder, until: now + lockMillis }
      )
      if (taken) return
      await new Promise((done) => setTimeout(done, 1 + Math.floor(Math.random() * 4)))
    }
  })

const unlockServer = (serial: Serialized) =>
  Effect.promise(() => serial.lock.updateOne({ _id: "lock", holder: serial.holder }, { $set: { until: 0 } })).pipe(
    Effect.asVoid
  )

/** Runs `transaction` alone on a serialized client's server; as it is on any other. */
const alone = <A, E>(client: MongoClient, transaction: Effect.Effect<A, E>): Effect.Effect<A, E> => {
  const serial = serialized.get(client)
  if (serial === undefined) return transaction
  return serial.queue.withPermits(1)(
    Effect.acquireUseRelease(
      lockServer(serial),
      () => transaction,
      () => unlockServer(serial)
    )
  )
}

/** The write methods of a collection: on a serialized client, each call without a session runs alone. */
const writeMethods = new Set<PropertyKey>([
  "insertOne",
  "insertMany",
  "updateOne",
  "updateMany",
  "replaceOne",
  "deleteOne",
  "deleteMany",
  "findOneAndUpdate",
  "findOneAndReplace",
  "findOneAndDelete",
  "bulkWrite"
])

/** Whether a write's arguments carry a session (it is part of a transaction, which runs alone already). */
const inSession = (args: ReadonlyArray<unknown>): boolean =>
  args.slice(1).some((arg) => typeof arg === "object" && arg !== null && "session" in arg && arg.session !== undefined)

/** Runs one write alone on a serialized client's server, answering or throwing what the write did. */
const writeAlone = async <A>(client: MongoClient, write: () => Promise<A>): Promise<A> => {
  const exit = await Effect.runPromiseExit(alone(client, Effect.tryPromise({ try: write, catch: (error) => error })))
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}

/**
 * The collections no transaction writes. A commit merges only the collections its transaction changed, so writes to
 * these cannot be lost and need not wait for one; they are the hot ones of sending (the transaction journal and the
 * relayer leases), of the deposit follower (its cursor), of sign-in and of idempotency keys. A collection written inside a transaction must not be here.
 */
const untransacted = new Set([
  "chain_transactions",
  "relayer_leases",
  "chain_followers",
  "siwe_nonces",
  "idempotency_keys"
])

/**
 * `db` as the adapters use it: on a serialized client, every write outside a transaction runs alone, as transactions
 * do (except on the collections no transaction writes); on any other, `db` itself.
 */
export const guardWrites = (client: MongoClient, db: Db): Db => {
  if (!serialized.has(client)) return db
  const guarded = (collection: Collection) =>
    new Proxy(collection, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target)
        if (typeof value !== "function") return value
        if (!writeMethods.has(property)) return value.bind(target)
        return (...args: Array<unknown>) =>
          inSession(args) ? value.apply(target, args) : writeAlone(client, () => value.apply(target, args))
      }
    })
  return new Proxy(db, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target)
      if (property === "collection" && typeof value === "function") {
        return (...args: Array<unknown>) => {
          const collection: Collection = value.apply(target, args)
          return untransacted.has(collection.collectionName) ? collection : guarded(collection)
        }
      }
      return typeof value === "function" ? value.bind(target) : value
    }
  })
}

/** Whether transactions on `client` run one at a time. */
export const transactionsSerialized = (client: MongoClient): boolean => serialized.has(client)

/** Most transactions one joint commit carries on jongodb. */
const jointMax = 64

/** Runs `works` one after the other in one transaction on `client`; answers their results, or fails with the cause. */
const transactionOf = (client: MongoClient, works: ReadonlyArray<(session: ClientSession) => Promise<unknown>>) =>
  Effect.acquireUseRelease(
    Effect.sync(() => client.startSession()),
    (session) =>
      Effect.tryPromise({
        try: () =>
          session.withTransaction(async () => {
            const results: Array<unknown> = []
            for (const work of works) results.push(await work(session))
            return results
          }),
        catch: (error) => error
      }),
    (session) => Effect.promise(() => session.endSession())
  )

/** Commits what waits on a serialized client, jointly, until nothing does. */
const commitWaiting = (client: MongoClient, serial: Serialized) =>
  Effect.gen(function* () {
    while (serial.waiting.length > 0) {
      const joint = serial.waiting.splice(0, jointMax)
      const together = yield* Effect.exit(
        alone(
          client,
          transactionOf(
            client,
            joint.map((waiting) => waiting.work)
          )
        )
      )
      if (Exit.isSuccess(together)) {
        for (const [index, waiting] of joint.entries()) waiting.done(Exit.succeed(together.value[index]))
      } else if (joint.length === 1) {
        joint[0]?.done(together)
      } else {
        // One of them failed the joint commit: each alone, so only that one fails.
        for (const waiting of joint) {
          const single = yield* Effect.exit(alone(client, transactionOf(client, [waiting.work])))
          waiting.done(Exit.map(single, (results) => results[0]))
        }
      }
    }
  })

/** Starts committing on a serialized client unless a commit is under way (it takes what waits when it ends). */
const commitSoon = (client: MongoClient, serial: Serialized): void => {
  if (serial.committing || serial.waiting.length === 0) return
  serial.committing = true
  Effect.runFork(
    commitWaiting(client, serial).pipe(
      Effect.ensuring(
        Effect.sync(() => {
          serial.committing = false
          commitSoon(client, serial)
        })
      )
    )
  )
}

/** The session of the unit of work the calling fiber runs in (`MongoUnitOfWork`), if any. */
export const UnitSession = Context.Reference<ClientSession | undefined>("@svc/adapters/mongo/UnitSession", {
  defaultValue: () => undefined
})

/**
 * `inUnit` with the session of the unit of work the calling fiber runs in, or `alone` outside one. A write in a unit
 * must take its session: on jongodb a write without one waits for the transactions, the unit's among them.
 */
export const inUnitOr = <A, E>(
  inUnit: (session: ClientSession) => Effect.Effect<A, E>,
  alone: Effect.Effect<A, E>
): Effect.Effect<A, E> =>
  Effect.flatMap(Effect.service(UnitSession), (session) => (session === undefined ? alone : inUnit(session)))

/**
 * Runs `work` in a transaction on `client`; a rejection aborts it and is a defect. Inside a unit of work, `work` runs
 * in the unit's transaction.
 */
export const inTransaction = <A>(client: MongoClient, work: (session: ClientSession) => Promise<A>): Effect.Effect<A> =>
  inUnitOr(
    (session) => Effect.promise(() => work(session)),
    Effect.suspend(() => transactionAlone(client, work))
  )

/** `inTransaction` outside a unit of work: a transaction of its own (on jongodb, in the next joint commit). */
const transactionAlone = <A>(client: MongoClient, work: (session: ClientSession) => Promise<A>): Effect.Effect<A> => {
  const serial = serialized.get(client)
  if (serial === undefined) {
    return Effect.map(Effect.orDie(transactionOf(client, [work])), (results) => results[0] as A)
  }
  return Effect.callback<A>((resume) => {
    serial.waiting.push({
      work,
      done: (exit) =>
        resume(Exit.isSuccess(exit) ? Effect.succeed(exit.value as A) : Effect.die(Cause.squash(exit.cause)))
    })
    commitSoon(client, serial)
  })
}

/**
 * Runs `work` in a transaction on `client` and aborts it, whatever `work` did: a write that changes nothing (readiness).
 * Fails with what the server answered.
 */
export const inAbortedTransaction = (
  client: MongoClient,
  work: (session: ClientSession) => Promise<unknown>
): Effect.Effect<void, unknown> => {
  const transaction = Effect.acquireUseRelease(
    Effect.sync(() => client.startSession()),
    (session) =>
      Effect.tryPromise({
        try: async () => {
          session.startTransaction()
          try {
            await work(session)
          } finally {
            await session.abortTransaction()
          }
        },
        catch: (error) => error
      }),
    (session) => Effect.promise(() => session.endSession())
  )
  return alone(client, transaction)
}
