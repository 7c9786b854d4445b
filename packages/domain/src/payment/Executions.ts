/**
 * Where the executions of signed requests run once their holder has them (decision 0093): on fibers of one scope, so
 * an execution goes on after its PUT answered 202 (decision 0061), and a graceful stop waits for what runs there
 * within its grace (`SHUTDOWN_GRACE_MS`), then interrupts the rest. An execution interrupted so stops renewing its
 * claim; once the claim lapses, recovery in any process takes it over. No execution runs detached.
 */
import { Context, Duration, Effect, type Fiber, FiberSet, Layer, Scope } from "effect"

/** The executions of this process. */
export class Executions extends Context.Service<
  Executions,
  {
    /** Runs `execution` on a fiber of the executions' scope; answers the fiber. */
    readonly fork: <A, E, R>(execution: Effect.Effect<A, E, R>) => Effect.Effect<Fiber.Fiber<A, E>, never, R>
    /** How many executions run now. */
    readonly running: Effect.Effect<number>
  }
>()("@svc/domain/payment/Executions") {
  /**
   * The executions for the layer's lifetime: when the layer's scope closes, those still running get `graceMillis` to
   * end, then are interrupted.
   */
  static readonly layer = (options: { readonly graceMillis: number }): Layer.Layer<Executions> =>
    Layer.effect(
      Executions,
      Effect.gen(function* () {
        const own = yield* Scope.fork(yield* Effect.scope)
        const set = yield* FiberSet.make().pipe(Scope.provide(own))
        // Added after the set's own scope, so it runs first: the executions get their grace before the interruption.
        yield* Effect.addFinalizer(() =>
          FiberSet.awaitEmpty(set).pipe(
            Effect.timeoutOption(Duration.millis(options.graceMillis)),
            Effect.andThen(FiberSet.size(set)),
            Effect.tap((left) =>
              left > 0 ? Effect.logWarning(`stopping: ${left} execution(s) interrupted past the grace`) : Effect.void
            ),
            Effect.andThen(Scope.close(own, Effect.void as never))
          )
        )
        return Executions.of({
          fork: (execution) => FiberSet.run(set, execution),
          running: FiberSet.size(set)
        })
      })
    )
}
