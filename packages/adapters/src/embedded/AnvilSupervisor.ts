/**
 * Embedded mode's anvil, kept alive: when the process dies (a crash, an OOM kill, `kill -9`), it is started again on
 * the same port, the last saved chain is loaded into it, and the caller is told so it can send again what the saved
 * chain lost (docs/decisions/0037). Meanwhile requests that need the chain answer 503 and `/ready` says so.
 */
import { Duration, Effect, Schedule, Scope } from "effect"
import { type Anvil, startAnvil } from "./Anvil.ts"
import type { PersistedChain } from "./AnvilState.ts"
import type { EmbeddedStartError } from "./ChildProcess.ts"

/** An anvil that can be started again where it ran. */
export interface RestartableAnvil extends Anvil {
  /** Starts a new anvil on the same port, stopped when the scope `startRestartableAnvil` ran in closes. */
  readonly restart: Effect.Effect<Anvil, EmbeddedStartError>
}

/**
 * Starts anvil as `startAnvil` does. Its restarts live in a scope forked here, before anything acquired later (the
 * chain's persistence), so on shutdown the final save still finds the restarted node running.
 */
export const startRestartableAnvil = (
  options: Parameters<typeof startAnvil>[0] = {}
): Effect.Effect<RestartableAnvil, EmbeddedStartError, Scope.Scope> =>
  Effect.gen(function* () {
    const restarts = yield* Scope.fork(yield* Scope.Scope)
    const anvil = yield* startAnvil(options)
    return { ...anvil, restart: startAnvil({ ...options, port: anvil.port }).pipe(Scope.provide(restarts)) }
  })

/**
 * Watches `anvil` for the scope's lifetime: each time it exits, starts it again from the chain `persisted` saved
 * (retrying every second while that fails), then runs `onRestart` with when that chain was saved. A stop by the scope
 * is not a crash: the watch ends first.
 */
export const superviseAnvil = (options: {
  readonly anvil: RestartableAnvil
  readonly persisted: PersistedChain
  readonly onRestart: (savedAt: number | undefined) => Effect.Effect<void>
}): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function* () {
    let current: Anvil = options.anvil
    while (true) {
      yield* current.exited
      yield* Effect.logWarning(`anvil at ${options.anvil.rpcUrl} exited; starting it again from the saved chain`)
      const restarted = yield* options.persisted.reload(options.anvil.restart).pipe(
        Effect.tapError((error) => Effect.logWarning(`restarting anvil failed: ${error.message}`)),
        Effect.retry(Schedule.spaced(Duration.seconds(1)))
      )
      current = restarted.value
      yield* options
        .onRestart(restarted.savedAt)
        .pipe(Effect.catchCause((cause) => Effect.logError("after restarting anvil", cause)))
      yield* Effect.logInfo(`anvil restarted at ${options.anvil.rpcUrl}`)
    }
  }).pipe(Effect.forkScoped, Effect.asVoid)
