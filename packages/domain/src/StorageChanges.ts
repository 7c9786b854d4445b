/**
 * What the storage tells of its changes, so that waiting work need not poll often (decision 0096): MongoDB's change
 * streams wake the outbox's fan-out, the webhook dispatcher and replays waiting for a request's outcome. A storage that
 * cannot tell (SQLite, or a MongoDB without change streams) leaves the default, and the waiting polls at its own pace,
 * as always: a change missed by a stream that broke is found by the next poll.
 */
import { Context, type Duration, Effect } from "effect"

/** What a waiter waits for: events appended, deliveries queued or due again, a request's execution changed. */
export type ChangeTopic = "events" | "deliveries" | "requests"

/** Changes, as the storage tells them. */
export interface Changes {
  /** Whether changes are told now (the waiting then polls rarely, as a safety net). */
  readonly streaming: Effect.Effect<boolean>
  /**
   * An effect that completes at the first change of `topic` after this call (or spuriously); one that never completes
   * when changes are not told. Taken before a look for work, so a change during the look is not missed.
   */
  readonly watch: (topic: ChangeTopic) => Effect.Effect<Effect.Effect<void>>
}

/** No changes told: every waiter polls. */
export const unstreamed: Changes = { streaming: Effect.succeed(false), watch: () => Effect.succeed(Effect.never) }

/** The storage's changes (none told, unless a storage adapter provides them). */
export const StorageChanges = Context.Reference<Changes>("@svc/domain/StorageChanges", {
  defaultValue: () => unstreamed
})

/** How long a waiter waits between looks: `every` while polling, `streamingEvery` while changes are told. */
export interface WaitBetween {
  readonly topic: ChangeTopic
  readonly every: Duration.Input
  readonly streamingEvery: Duration.Input
}

/**
 * Waits until `woken` (a `watch` taken before the look that found nothing) completes, or the time between looks
 * passes.
 */
export const waitForChange = (woken: Effect.Effect<void>, wait: WaitBetween): Effect.Effect<void> =>
  Effect.flatMap(Effect.service(StorageChanges), (changes) =>
    Effect.flatMap(changes.streaming, (streaming) =>
      Effect.raceFirst(Effect.sleep(streaming ? wait.streamingEvery : wait.every), woken)
    )
  )

/**
 * Runs `look` until it answers a value, looking again after each change of `wait.topic`, or after the time between
 * looks.
 */
export const lookUntilFound = <A, E, R>(
  look: Effect.Effect<A | undefined, E, R>,
  wait: WaitBetween
): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    const changes = yield* Effect.service(StorageChanges)
    for (;;) {
      const woken = yield* changes.watch(wait.topic)
      const found = yield* look
      if (found !== undefined) return found
      yield* waitForChange(woken, wait)
    }
  })
