/**
 * What a MongoDB driver call failed with, as a typed error (decision 0096): every call of the adapter goes through
 * `tryMongo`, so a driver error is never an untyped defect. The stores handle what they expect (a duplicate key is an
 * existing document; a write conflict is tried again); what a port cannot answer leaves it through `toPort`.
 */
import { StorageUnavailable } from "@svc/domain/StorageHealth"
import { Data, Effect } from "effect"
import { MongoBulkWriteError, MongoError } from "mongodb"

/** A write met a unique index: the document, or one with the same key, exists. */
export class DuplicateKey extends Data.TaggedError("DuplicateKey")<{ readonly cause: unknown }> {}

/**
 * A transaction met another's concurrent write (or lost its primary mid-way) and its tries ran out: contention, or an
 * election that outlasted them. Nothing of it was committed.
 */
export class WriteConflict extends Data.TaggedError("WriteConflict")<{ readonly cause: unknown }> {}

/** The failures of a driver call that callers may act on. */
export type MongoFailure = StorageUnavailable | DuplicateKey | WriteConflict

/**
 * Server codes of a replica set without a usable primary for a moment, or of a server out of reach or out of time
 * (the driver's `MONGODB_ERROR_CODES`): an election, a step-down, a shutdown, a lost host, a write concern that timed
 * out, a majority not yet readable.
 */
const unavailableCodes = new Set([
  6, 7, 50, 64, 89, 91, 133, 134, 189, 262, 9001, 10058, 10107, 11600, 11602, 13435, 13436
])

/** The driver's own errors for a server it cannot reach, lost, or closed, or an operation out of time. */
const unavailableNames = new Set([
  "MongoServerSelectionError",
  "MongoNetworkError",
  "MongoNetworkTimeoutError",
  "MongoTopologyClosedError",
  "MongoPoolClearedError",
  "MongoNotConnectedError",
  "MongoServerClosedError",
  "MongoClientClosedError",
  "MongoOperationTimeoutError",
  "MongoWriteConcernError",
  "MongoStalePrimaryError"
])

/** A server-side write conflict (WriteConflict, 112), or a transaction the server says may succeed when run again. */
export const isTransient = (error: unknown): boolean =>
  error instanceof MongoError && (error.code === 112 || error.hasErrorLabel("TransientTransactionError"))

/**
 * Whether a write failed only on duplicate keys (code 11000): the write's own error, or every error of a bulk write
 * (one that failed on anything else as well is not a duplicate).
 */
export const isDuplicateKey = (error: unknown): boolean => {
  if (error instanceof MongoBulkWriteError && error.writeErrors !== undefined) {
    const errors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]
    return errors.length > 0 && errors.every((e) => e.code === 11000)
  }
  return typeof error === "object" && error !== null && "code" in error && error.code === 11000
}

/** Whether a failure is one of a driver call's (`MongoFailure`). */
export const isMongoFailure = (error: unknown): error is MongoFailure =>
  error instanceof StorageUnavailable || error instanceof DuplicateKey || error instanceof WriteConflict

/** The message of an error, on one line. */
const reasonOf = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? ""

/**
 * The typed failure a driver error is, or `undefined` for one no caller can act on: a bug of ours (a bad query, a
 * document too large), which stays a defect.
 */
export const failureOf = (error: unknown): MongoFailure | undefined => {
  if (isMongoFailure(error)) return error
  if (isDuplicateKey(error)) return new DuplicateKey({ cause: error })
  if (isTransient(error)) return new WriteConflict({ cause: error })
  if (!(error instanceof MongoError)) return undefined
  const code = typeof error.code === "number" ? error.code : undefined
  if (
    unavailableNames.has(error.name) ||
    (code !== undefined && unavailableCodes.has(code)) ||
    error.hasErrorLabel("RetryableWriteError") ||
    error.hasErrorLabel("ResetPool") ||
    error.hasErrorLabel("SystemOverloadedError")
  ) {
    return new StorageUnavailable({ reason: `MongoDB: ${reasonOf(error)}` })
  }
  return undefined
}

/** A driver error as a failure (`failureOf`), or as a defect when no caller can act on it. */
export const failWith = (error: unknown): Effect.Effect<never, MongoFailure> => {
  const failure = failureOf(error)
  return failure === undefined ? Effect.die(error) : Effect.fail(failure)
}

/**
 * A driver call whose outcome no one waits for (closing, ending a session, aborting what already failed): whatever
 * it throws is dropped.
 */
export const tryQuietly = (call: () => Promise<unknown>): Effect.Effect<void> =>
  Effect.tryPromise({ try: call, catch: (error) => error }).pipe(Effect.exit, Effect.asVoid)

/** One driver call as an Effect: its failure typed (`failureOf`), or a defect when no caller can act on it. */
export const tryMongo = <A>(call: () => Promise<A>): Effect.Effect<A, MongoFailure> =>
  Effect.tryPromise({ try: call, catch: (error) => error }).pipe(Effect.catch(failWith))

/**
 * A store's operation as its port answers it. The ports' storage failures are defects (DESIGN §3: no caller acts on
 * them but by answering 503 or backing off), so what the store did not handle leaves as one, still typed: the domain's
 * `StorageUnavailable` (503 with `Retry-After`), an unexpected duplicate key (a bug: 500), or a write conflict, which
 * only a transaction meets and whose runner tries the transaction again (`MongoTransaction.ts`).
 */
export const toPort = <A, E, R>(
  effect: Effect.Effect<A, E | MongoFailure, R>
): Effect.Effect<A, Exclude<E, MongoFailure>, R> =>
  Effect.catch(effect, (error: E | MongoFailure) =>
    isMongoFailure(error) ? Effect.die(error) : Effect.fail(error as Exclude<E, MongoFailure>)
  )
