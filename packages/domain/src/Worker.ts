/**
 * Background workers that stay quiet while a dependency is down (issue 22, item 6). A pass that fails starts an
 * outage: it is logged once, with its cause, and the worker backs off exponentially (its period doubled after each
 * failed pass, up to a bound). The first pass that works again ends it, logged once with how long it lasted. Between
 * the two nothing is logged, and `workerOutages` names the outage (`GET /ready` reports it).
 *
 * The outages are this process's, as its metrics are: one registry per process, whatever servers it runs.
 */
import { Cause, Clock, Duration, Effect, Exit } from "effect"
import { type ChangeTopic, StorageChanges, waitForChange } from "./StorageChanges.ts"

/** A worker failing now. */
export interface WorkerOutage {
  readonly worker: string
  /** When its first failed pass ended (epoch ms). */
  readonly since: number
  /** The first failure's message, one line. */
  readonly reason: string
  /** Failed passes so far. */
  readonly failures: number
}

const outages = new Map<string, WorkerOutage>()

/** The workers of this process failing now, the oldest outage first. */
export const workerOutages = (): ReadonlyArray<WorkerOutage> => [...outages.values()].sort((a, b) => a.since - b.since)

/** A failure's message on one line, bounded. */
const reasonOf = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const message = error instanceof Error ? error.message : String(error)
  return message.split("\n")[0]?.slice(0, 200) ?? ""
}

/** The default bound of the backoff: a dependency that comes back is noticed within a minute. */
export const defaultMaxBackoff = Duration.minutes(1)

/** A worker woken by the storage's changes (`StorageChanges`): of what, and how often it looks meanwhile. */
export interface WokenBy {
  readonly topic: ChangeTopic
  /** The time between passes while changes are told (a safety net for one missed). */
  readonly streamingEvery: Duration.Input
}

/**
 * Runs `pass` every `every` for ever (until interrupted), quietly through outages: after `n` failed passes in a row
 * it waits `every * 2^n`, at most `maxBackoff` (and never less than `every`). With `wokenBy`, a change of its topic
 * ends the wait after a pass that worked, and while the storage tells changes the wait is `streamingEvery`.
 */
export const repeatQuietly = <R>(
  worker: string,
  pass: Effect.Effect<unknown, unknown, R>,
  options: {
    readonly every: Duration.Input
    readonly maxBackoff?: Duration.Input | undefined
    readonly wokenBy?: WokenBy | undefined
  }
): Effect.Effect<never, never, R> => {
  const every = Duration.toMillis(Duration.fromInputUnsafe(options.every))
  const max = Math.max(every, Duration.toMillis(Duration.fromInputUnsafe(options.maxBackoff ?? defaultMaxBackoff)))
  const wokenBy = options.wokenBy
  return Effect.gen(function* () {
    const changes = yield* Effect.service(StorageChanges)
    while (true) {
      const woken = wokenBy === undefined ? Effect.never : yield* changes.watch(wokenBy.topic)
      const exit = yield* Effect.exit(pass)
      const now = yield* Clock.currentTimeMillis
      const outage = outages.get(worker)
      if (Exit.isSuccess(exit)) {
        if (outage !== undefined) {
          outages.delete(worker)
          yield* Effect.logInfo(
            `${worker} works again after ${Math.round((now - outage.since) / 100) / 10} s (${outage.failures} failed passes)`
          )
        }
        yield* wokenBy === undefined
          ? Effect.sleep(Duration.millis(every))
          : waitForChange(woken, { topic: wokenBy.topic, every, streamingEvery: wokenBy.streamingEvery })
        continue
      }
      if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
      const failures = (outage?.failures ?? 0) + 1
      if (outage === undefined) {
        yield* Effect.logWarning(`${worker} fails; retrying with backoff, quietly until it works again`, exit.cause)
      }
      outages.set(worker, {
        worker,
        since: outage?.since ?? now,
        reason: outage?.reason ?? reasonOf(exit.cause),
        failures
      })
      yield* Effect.sleep(Duration.millis(Math.min(max, every * 2 ** failures)))
    }
  }).pipe(Effect.ensuring(Effect.sync(() => outages.delete(worker))))
}
