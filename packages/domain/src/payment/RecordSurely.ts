/**
 * A holder's record tried again when the storage fails it for a moment (decision 0081): storage failures are defects,
 * and one that lasts a moment (a database connection reset) would otherwise leave a settled request unrecorded, its
 * replays answered "in flight", until its claim lapses and recovery records it.
 */
import { Duration, Effect } from "effect"

/** How many times a record the storage failed to take is tried again, 100 ms apart and doubling. */
const recordRetries = 5

/**
 * `record` (what the holder writes once its request settled), tried again when it dies. Records are safe to try again:
 * only the claim's holder records, once, under its fencing token. Five more tries over about 3 s; then the defect.
 */
export const recordSurely = <A, E, R>(record: Effect.Effect<A, E, R>, attempt = 0): Effect.Effect<A, E, R> =>
  Effect.catchDefect(record, (defect) =>
    attempt >= recordRetries
      ? Effect.die(defect)
      : Effect.logWarning("a record the storage failed to take is tried again", defect).pipe(
          Effect.andThen(Effect.sleep(Duration.millis(100 * 2 ** attempt))),
          Effect.andThen(recordSurely(record, attempt + 1))
        )
  )
