/**
 * Embedded mode's anvil, kept alive: when the process dies (a crash, an OOM kill, `kill -9`), it is started again on
 * the same port from its saved chain, and the caller is told so it can send again what the saved chain lost
 * (docs/decisions/0037). Meanwhile requests that need the chain answer 503 and `/ready` says so, with what the
 * supervisor is doing.
 *
 * An anvil that dies again soon after its restart is not restarted in a tight loop (issue 18 saw 534 restarts in
 * 100 s): each quick death doubles the wait before the next start, up to a cap (docs/decisions/0043).
 */
import { Clock, Duration, Effect, Scope } from "effect"
import { type Anvil, startAnvil } from "./Anvil.ts"
import type { AnvilStateError, PersistedChain } from "./AnvilState.ts"
import type { EmbeddedStartError } from "./ChildProcess.ts"

/** An anvil that can be started again where it ran. */
export interface RestartableAnvil extends Anvil {
  /** Starts a new anvil on the same port (from the same state file), stopped when the scope `startRestartableAnvil` ran in closes. */
  readonly restart: Effect.Effect<Anvil, EmbeddedStartError | AnvilStateError>
}

/**
 * Starts anvil as `startAnvil` does. Its restarts live in a scope forked here, before anything acquired later (the
 * chain's persistence), so on shutdown the final save still finds the restarted node running.
 */
export const startRestartableAnvil = (
  options: Parameters<typeof startAnvil>[0] = {}
): Effect.Effect<RestartableAnvil, EmbeddedStartError | AnvilStateError, Scope.Scope> =>
  Effect.gen(function* () {
    const restarts = yield* Scope.fork(yield* Scope.Scope)
    const anvil = yield* startAnvil(options)
    return { ...anvil, restart: startAnvil({ ...options, port: anvil.port }).pipe(Scope.provide(restarts)) }
  })

/** How restarts are paced. */
export interface RestartBackoff {
  /** An anvil that ran at least this long before it died is restarted at once (default 30 s). */
  readonly stableMillis: number
  /** The wait before the second quick restart in a row; it doubles with each further one (default 1 s). */
  readonly firstMillis: number
  /** The longest wait (default 60 s). */
  readonly maxMillis: number
}

const defaultBackoff: RestartBackoff = { stableMillis: 30_000, firstMillis: 1_000, maxMillis: 60_000 }

/** What the supervisor is doing: `undefined` while anvil runs, else a sentence for `/ready`. */
export interface AnvilSupervision {
  readonly status: Effect.Effect<string | undefined>
}

/** The wait before restart number `attempt` of a series of quick deaths: none for the first, then doubling. */
export const restartDelayMillis = (attempt: number, backoff: RestartBackoff = defaultBackoff) =>
  attempt <= 1 ? 0 : Math.min(backoff.maxMillis, backoff.firstMillis * 2 ** (attempt - 2))

/**
 * Watches `anvil` for the scope's lifetime: each time it exits, starts it again from its saved chain (waiting longer
 * after each quick death, and after each failed start), then runs `onRestart` with when that chain was saved. A stop
 * by the scope is not a crash: the watch ends first. Answers what it is doing, for readiness.
 */
export const superviseAnvil = (options: {
  readonly anvil: RestartableAnvil
  readonly persisted: PersistedChain
  readonly onRestart: (savedAt: number | undefined) => Effect.Effect<void>
  readonly backoff?: RestartBackoff
}): Effect.Effect<AnvilSupervision, never, Scope.Scope> =>
  Effect.gen(function* () {
    const backoff = options.backoff ?? defaultBackoff
    const url = options.anvil.rpcUrl
    let status: string | undefined
    const watch = Effect.gen(function* () {
      let current: Anvil = options.anvil
      let startedAt = yield* Clock.currentTimeMillis
      // Quick deaths (and failed starts) in a row.
      let attempt = 0
      while (true) {
        yield* current.exited
        const lived = (yield* Clock.currentTimeMillis) - startedAt
        attempt = lived < backoff.stableMillis ? attempt + 1 : 1
        let lastError = `anvil exited after ${(lived / 1000).toFixed(1)} s`
        while (true) {
          const delay = restartDelayMillis(attempt, backoff)
          status = `${lastError}; starting it again from the saved chain (attempt ${attempt}${delay > 0 ? `, in ${delay / 1000} s` : ""})`
          yield* Effect.logWarning(`anvil at ${url}: ${status}`)
          if (delay > 0) yield* Effect.sleep(Duration.millis(delay))
          const restarted = yield* options.persisted.reload(options.anvil.restart).pipe(Effect.result)
          if (restarted._tag === "Success") {
            current = restarted.success.value
            startedAt = yield* Clock.currentTimeMillis
            status = undefined
            yield* options
              .onRestart(restarted.success.savedAt)
              .pipe(Effect.catchCause((cause) => Effect.logError("after restarting anvil", cause)))
            yield* Effect.logInfo(`anvil restarted at ${url}`)
            break
          }
          lastError = `its start failed: ${restarted.failure.message}`
          attempt++
        }
      }
    })
    yield* Effect.forkScoped(watch)
    return { status: Effect.sync(() => status) }
  })
