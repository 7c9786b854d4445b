/**
 * Transactions on a replica set (decision 0096). Work that must be all-or-nothing (a state change and the events
 * reporting it, a use case's unit of work) runs in one transaction that reads and commits at majority, so what it
 * read and wrote survives an election. A write conflict or a primary lost mid-way aborts it on the server, which says
 * so (`TransientTransactionError`): the work then runs again, a few times, from the start; a commit whose outcome is
 * unknown is committed again, never run again.
 */
import { StorageUnavailable } from "@svc/domain/StorageHealth"
import { Cause, Context, Duration, Effect, Exit } from "effect"
import { type ClientSession, type MongoClient, MongoError, type TransactionOptions } from "mongodb"
import { failWith, type MongoFailure, tryQuietly, WriteConflict } from "./MongoErrors.ts"

/** What every transaction reads and commits at: a majority's view, acknowledged by a majority. */
export const transactionOptions: TransactionOptions = {
  readConcern: { level: "majority" },
  writeConcern: { w: "majority" },
  readPreference: "primary"
}

/** Runs work in one transaction; how `MongoDatabase` provides transactions. */
export type TransactionRunner = <A, E, R>(
  work: (session: ClientSession) => Effect.Effect<A, E, R>
) => Effect.Effect<A, E | MongoFailure, R>

/** Commits, again while the server cannot say whether it did (committing again is harmless; running again is not). */
const commit = (session: ClientSession) =>
  Effect.tryPromise({ try: () => session.commitTransaction(), catch: (error) => error }).pipe(
    Effect.retry({
      while: (error) => error instanceof MongoError && error.hasErrorLabel("UnknownTransactionCommitResult"),
      times: 3
    }),
    Effect.catch(failWith)
  )

/**
 * One try of `work` in a transaction of its own session on `client`: committed when it succeeds, aborted when it
 * fails, dies or is interrupted (ending the session aborts what is open).
 */
export const tryTransaction =
  (client: MongoClient): TransactionRunner =>
  (work) =>
    Effect.acquireUseRelease(
      Effect.try({ try: () => client.startSession(), catch: (error) => error }).pipe(Effect.catch(failWith)),
      (session) =>
        Effect.gen(function* () {
          session.startTransaction(transactionOptions)
          const exit = yield* Effect.exit(work(session))
          if (Exit.isFailure(exit)) {
            yield* tryQuietly(() => session.abortTransaction())
            return yield* exit
          }
          yield* commit(session)
          return exit.value
        }),
      (session) => tryQuietly(() => session.endSession())
    )

/** Whether a try met a write conflict: failed with one, or a store in its work died with one (`toPort`). */
const conflicted = (cause: Cause.Cause<unknown>): boolean =>
  cause.reasons.some(
    (reason) =>
      (Cause.isFailReason(reason) && reason.error instanceof WriteConflict) ||
      (Cause.isDieReason(reason) && reason.defect instanceof WriteConflict)
  )

/** Tries a transaction gets: after a conflict it runs again 20 ms later, then about twice as long each time (2.5 s in all). */
const conflictTries = 8

/**
 * `tryTransaction`, run again while it meets a write conflict; one that outlasts the tries is `StorageUnavailable`
 * (the database too contended for now: 503, retry later).
 */
export const transactionOn =
  (client: MongoClient): TransactionRunner =>
  <A, E, R>(work: (session: ClientSession) => Effect.Effect<A, E, R>) => {
    const again = (tried: number): Effect.Effect<A, E | MongoFailure, R> =>
      Effect.catchCause(tryTransaction(client)(work), (cause) => {
        if (!conflicted(cause)) return Effect.failCause(cause)
        if (tried >= conflictTries) {
          return Effect.fail(
            new StorageUnavailable({ reason: `MongoDB: a write conflict outlasted ${conflictTries} tries` })
          )
        }
        const pause = Math.min(1_000, 10 * 2 ** tried) * (0.5 + Math.random())
        return Effect.andThen(Effect.sleep(Duration.millis(pause)), again(tried + 1))
      })
    return again(1)
  }

/** The session of the unit of work the calling fiber runs in (`MongoUnitOfWork`), if any. */
export const UnitSession = Context.Reference<ClientSession | undefined>("@svc/adapters/mongo/UnitSession", {
  defaultValue: () => undefined
})

/** A session's option for a driver call (none outside a transaction). */
export const sessionOption = (session: ClientSession | undefined): { readonly session?: ClientSession } =>
  session === undefined ? {} : { session }

/**
 * The options that put a driver call in the calling unit of work's transaction (none outside one). Every write a
 * store makes where a unit may call it takes them: a write without the session would commit on its own.
 */
export const unitOptions: Effect.Effect<{ readonly session?: ClientSession }> = Effect.map(
  Effect.service(UnitSession),
  sessionOption
)

/**
 * Runs `work` in a transaction (`transaction`, the database's runner); inside a unit of work, in the unit's
 * transaction, which commits or aborts it.
 */
export const inTransaction = <A, E, R>(
  transaction: TransactionRunner,
  work: (session: ClientSession) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | MongoFailure, R> =>
  Effect.flatMap(Effect.service(UnitSession), (session) => (session === undefined ? transaction(work) : work(session)))
