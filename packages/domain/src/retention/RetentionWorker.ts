/**
 * The pruning worker (Retention.ts): one pass at a time across processes, each kind pruned in bounded batches.
 */
import { Clock, Duration, Effect, Layer } from "effect"
import { repeatQuietly } from "../Worker.ts"
import { type RetainedKind, RetentionStore, type RetentionWindows, retainedKinds } from "./Retention.ts"

/**
 * One pass: with the lease, each kind pruned in batches of `batch` (500) until caught up, at most `maxBatches` (1,000)
 * a kind; answers how many of each.
 */
export const pruneOnce = Effect.fn("Retention.pruneOnce")(function* (options: {
  readonly windows: RetentionWindows
  readonly holder: string
  readonly leaseMillis: number
  readonly batch?: number | undefined
  readonly maxBatches?: number | undefined
}) {
  const store = yield* RetentionStore
  const now = yield* Clock.currentTimeMillis
  const pruned: Record<RetainedKind, number> = { events: 0, deliveries: 0, requests: 0, mails: 0, transactions: 0 }
  if (!(yield* store.lease(options.holder, now, now + options.leaseMillis))) return pruned
  const batch = options.batch ?? 500
  for (const kind of retainedKinds) {
    const window = options.windows[kind]
    if (window <= 0) continue
    // Until caught up (a partial batch), within a bound; a batch is one short write, and others run between them.
    for (let i = 0; i < (options.maxBatches ?? 1_000); i++) {
      const deleted = yield* store.prune(kind, now - window, batch)
      pruned[kind] += deleted
      if (deleted < batch) break
      yield* Effect.yieldNow
    }
  }
  return pruned
})

/** The pruning worker, a pass every `every` (default 10 minutes), for the lifetime of the layer's scope. */
export const layer = (options: {
  readonly windows: RetentionWindows
  readonly holder: string
  readonly every?: Duration.Input | undefined
}) => {
  const every = Duration.fromInputUnsafe(options.every ?? Duration.minutes(10))
  return Layer.effectDiscard(
    repeatQuietly(
      "retention",
      pruneOnce({
        windows: options.windows,
        holder: options.holder,
        // Held across a missed pass, so the same process keeps it while it lives.
        leaseMillis: 3 * Duration.toMillis(every)
      }).pipe(
        Effect.tap((pruned) =>
          Object.values(pruned).some((n) => n > 0) ? Effect.logDebug("retention pruned", pruned) : Effect.void
        )
      ),
      { every }
    ).pipe(Effect.forkScoped)
  )
}
