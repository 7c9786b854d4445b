/**
 * The pruning worker (Retention.ts): one pass at a time across processes, each kind pruned in bounded batches.
 */
import { Clock, Duration, Effect, Layer, Option, Ref } from "effect"
import type { FencingToken } from "../Lease.ts"
import { repeatQuietly } from "../Worker.ts"
import { type RetainedKind, RetentionStore, type RetentionWindows, retainedKinds } from "./Retention.ts"

/** The token a pass holds the lease with, for the next one. */
export type PruneHeld = FencingToken | undefined

/** How a pass prunes. */
export interface PruneOptions {
  readonly windows: RetentionWindows
  readonly leaseMillis: number
  readonly batch?: number | undefined
  readonly maxBatches?: number | undefined
}

/**
 * One pass: with the lease (kept when `held` is still its token), each kind pruned in batches of `batch` (500) until
 * caught up, at most `maxBatches` (1,000) a kind; answers how many of each, and the token it held.
 */
export const pruneOnce = Effect.fn("Retention.pruneOnce")(function* (options: PruneOptions, held?: FencingToken) {
  const store = yield* RetentionStore
  const now = yield* Clock.currentTimeMillis
  const pruned: Record<RetainedKind, number> = { events: 0, deliveries: 0, requests: 0, mails: 0, transactions: 0 }
  const lease = yield* store.lease(held, now, now + options.leaseMillis)
  if (Option.isNone(lease)) return { pruned, token: undefined }
  const { token } = lease.value
  const batch = options.batch ?? 500
  for (const kind of retainedKinds) {
    const window = options.windows[kind]
    if (window <= 0) continue
    // Until caught up (a partial batch), within a bound; a batch is one short write, and others run between them.
    for (let i = 0; i < (options.maxBatches ?? 1_000); i++) {
      const deleted = yield* store.prune(kind, now - window, batch, token)
      pruned[kind] += deleted
      if (deleted < batch) break
      yield* Effect.yieldNow
    }
  }
  return { pruned, token }
})

/**
 * The pruning worker, a pass every `every` (default 10 minutes), for the lifetime of the layer's scope; each pass
 * renews the lease the last one held.
 */
export const layer = (options: { readonly windows: RetentionWindows; readonly every?: Duration.Input | undefined }) => {
  const every = Duration.fromInputUnsafe(options.every ?? Duration.minutes(10))
  // Held across a missed pass, so the same process keeps it while it lives.
  const prune: PruneOptions = { windows: options.windows, leaseMillis: 3 * Duration.toMillis(every) }
  return Layer.effectDiscard(
    Effect.gen(function* () {
      const held = yield* Ref.make<FencingToken | undefined>(undefined)
      const pass = Effect.flatMap(Ref.get(held), (token) => pruneOnce(prune, token)).pipe(
        Effect.tap(({ pruned, token }) =>
          Effect.andThen(
            Ref.set(held, token),
            Object.values(pruned).some((n) => n > 0) ? Effect.logDebug("retention pruned", pruned) : Effect.void
          )
        )
      )
      yield* repeatQuietly("retention", pass, { every }).pipe(Effect.forkScoped)
    })
  )
}
