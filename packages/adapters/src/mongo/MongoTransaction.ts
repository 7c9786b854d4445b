/**
 * One MongoDB transaction as an Effect: the session is opened for the work and always closed. Work that must be
 * all-or-nothing (a state change and the events reporting it) goes through here.
 *
 * On jongodb (embedded mode, tests) transactions run one at a time: it drops the connection pool when transactions
 * overlap ("Server ended moreToCome unexpectedly"), it does not detect write conflicts, so overlapping transactions of
 * two processes can lose one's writes, and its transactions cost time in proportion to the database's size
 * (docs/decisions/0017, 0060). On one client a queue orders them; across processes a lock document on the server (taken
 * with a conditional `updateOne`, which jongodb applies atomically, for 30 s at most should its holder die) does.
 * `MongoDatabase` registers a jongodb client here; on MongoDB transactions run concurrently.
 */
import { randomUUID } from "node:crypto"
import { Effect, Semaphore } from "effect"
import type { ClientSession, Collection, MongoClient } from "mongodb"
import { madeOnce } from "./Leases.ts"

/** The lock document of a jongodb server: who runs a transaction, until when (epoch ms). */
interface TransactionLock {
  _id: string
  holder: string
  until: number
}

interface Serialized {
  readonly queue: Semaphore.Semaphore
  readonly lock: Collection<TransactionLock>
  readonly holder: string
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
    holder: randomUUID()
  })
}

/** Takes the server's transaction lock for `serial`'s client, waiting while another client holds it. */
const lockServer = (serial: Serialized) =>
  Effect.promise(async () => {
    await madeOnce(serial.lock, "lock", { holder: "", until: 0 })
    for (;;) {
      const now = Date.now()
      const taken = await serial.lock.updateOne(
        { _id: "lock", until: { $lte: now } },
        { $set: { holder: serial.holder, until: now + lockMillis } }
      )
      if (taken.modifiedCount === 1) return
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

/** Whether transactions on `client` run one at a time. */
export const transactionsSerialized = (client: MongoClient): boolean => serialized.has(client)

/** Runs `work` in a transaction on `client`; a rejection aborts it and is a defect. */
export const inTransaction = <A>(
  client: MongoClient,
  work: (session: ClientSession) => Promise<A>
): Effect.Effect<A> => {
  const transaction = Effect.acquireUseRelease(
    Effect.sync(() => client.startSession()),
    (session) => Effect.promise(() => session.withTransaction(() => work(session))),
    (session) => Effect.promise(() => session.endSession())
  )
  return alone(client, transaction)
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
