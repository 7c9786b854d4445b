/**
 * One MongoDB transaction as an Effect: the session is opened for the work and always closed. Work that must be
 * all-or-nothing (a state change and the events reporting it) goes through here.
 */
import { Effect } from "effect"
import type { ClientSession, MongoClient } from "mongodb"

/** Runs `work` in a transaction on `client`; a rejection aborts it and is a defect. */
export const inTransaction = <A>(client: MongoClient, work: (session: ClientSession) => Promise<A>): Effect.Effect<A> =>
  Effect.acquireUseRelease(
    Effect.sync(() => client.startSession()),
    (session) => Effect.promise(() => session.withTransaction(() => work(session))),
    (session) => Effect.promise(() => session.endSession())
  )
