/**
 * One MongoDB transaction as an Effect: the session is opened for the work and always closed. Work that must be
 * all-or-nothing (a state change and the events reporting it) goes through here.
 *
 * On jongodb (embedded mode, tests) transactions on one client run one at a time: it drops the connection pool when
 * transactions overlap ("Server ended moreToCome unexpectedly"), and its transactions cost time in proportion to the
 * database's size (docs/decisions/0017). `MongoDatabase` registers a jongodb client here; on MongoDB transactions
 * run concurrently.
 */
import { Effect, Semaphore } from "effect"
import type { ClientSession, MongoClient } from "mongodb"

const queues = new WeakMap<MongoClient, Semaphore.Semaphore>()

/** Makes transactions on `client` run one at a time (for a server that cannot overlap them). */
export const serializeTransactions = (client: MongoClient): void => {
  if (!queues.has(client)) queues.set(client, Semaphore.makeUnsafe(1))
}

/** Whether transactions on `client` run one at a time. */
export const transactionsSerialized = (client: MongoClient): boolean => queues.has(client)

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
  const queue = queues.get(client)
  return queue === undefined ? transaction : queue.withPermits(1)(transaction)
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
  const queue = queues.get(client)
  return queue === undefined ? transaction : queue.withPermits(1)(transaction)
}
