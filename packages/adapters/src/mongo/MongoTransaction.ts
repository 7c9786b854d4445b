/**
 * One MongoDB transaction as an Effect: the session is opened for the work and always closed. Work that must be
 * all-or-nothing (a state change and the events reporting it) goes through here.
 *
 * Transactions on one client run one at a time: jongodb (embedded mode, tests) drops the connection pool when
 * transactions overlap ("Server ended moreToCome unexpectedly"), and its transactions cost time in proportion to the
 * database's size (docs/decisions/0017). On MongoDB each lasts milliseconds, so the queue stays short.
 */
import { Effect, Semaphore } from "effect"
import type { ClientSession, MongoClient } from "mongodb"

const queues = new WeakMap<MongoClient, Semaphore.Semaphore>()

const queueOf = (client: MongoClient) => {
  const existing = queues.get(client)
  if (existing !== undefined) return existing
  const queue = Semaphore.makeUnsafe(1)
  queues.set(client, queue)
  return queue
}

/** Runs `work` in a transaction on `client`; a rejection aborts it and is a defect. */
export const inTransaction = <A>(client: MongoClient, work: (session: ClientSession) => Promise<A>): Effect.Effect<A> =>
  queueOf(client).withPermits(1)(
    Effect.acquireUseRelease(
      Effect.sync(() => client.startSession()),
      (session) => Effect.promise(() => session.withTransaction(() => work(session))),
      (session) => Effect.promise(() => session.endSession())
    )
  )
