/**
 * The issued-request sweep: requests never executed whose typed data expired more than `keptAfterExpirySeconds` ago
 * are deleted, so abandoned requests stop growing the database. Any number of sweepers may run at once: a delete of
 * an already deleted record changes nothing, and only unclaimed records are deleted, so no lease is needed.
 */
import { Clock, Duration, Effect, Layer } from "effect"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { repeatQuietly } from "../Worker.ts"
import { IssuedRequestPolicy } from "./IssuedRequestPolicy.ts"

/** Records deleted per statement: bounds each write, so a large backlog never holds the database for long. */
const batchSize = 500

/** Deletes every expired, unexecuted request past its keeping time; answers how many went. */
export const sweep = Effect.fn("IssuedRequestExpiry.sweep")(function* () {
  const store = yield* IssuedRequestStore
  const policy = yield* IssuedRequestPolicy
  const cutoff = Math.floor((yield* Clock.currentTimeMillis) / 1000) - policy.keptAfterExpirySeconds
  let removed = 0
  for (;;) {
    const batch = yield* store.removeExpired(cutoff, batchSize)
    removed += batch
    if (batch < batchSize) return removed
  }
})

/** A sweeper running every `every` (default one minute) for the lifetime of the layer's scope. */
export const layer = (options: { readonly every?: Duration.Input | undefined } = {}) =>
  Layer.effectDiscard(
    repeatQuietly("issued request sweep", sweep(), { every: options.every ?? Duration.minutes(1) }).pipe(
      Effect.forkScoped
    )
  )
