/**
 * The unit of work on SQLite: the unit runs to its end inside one `BEGIN IMMEDIATE` … `COMMIT` (decision 0080).
 *
 * node:sqlite is synchronous and a process has one connection: a transaction left open while the unit's fiber yields
 * would take in other fibers' statements (and roll them back with it). So the unit runs synchronously, on its own
 * fiber flushed at once, inside the transaction; no other fiber runs until it ends, as with any one port call. Its
 * port calls that open a transaction join this one. An asynchronous step inside is a defect, and rolls back.
 */
import { UnitOfWork } from "@svc/domain/UnitOfWork"
import { Cause, type Context, Effect, Exit, Layer } from "effect"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** Thrown inside the transaction to roll it back; never leaves it. */
class Undone {
  readonly exit: Exit.Exit<unknown, unknown>
  constructor(exit: Exit.Exit<unknown, unknown>) {
    this.exit = exit
  }
}

/**
 * Runs `effect` on `context` to its end, now: its exit. A step that would wait ends it with a defect, and its fiber,
 * left waiting, is interrupted, so nothing of it runs later outside the transaction.
 */
const runNow = <A, E, R>(context: Context.Context<R>, effect: Effect.Effect<A, E, R>): Exit.Exit<A, E> => {
  const exit = Effect.runSyncExitWith(context)(effect)
  if (Exit.isFailure(exit)) {
    for (const reason of exit.cause.reasons) {
      if (Cause.isDieReason(reason) && Cause.isAsyncFiberError(reason.defect)) reason.defect.fiber.interruptUnsafe()
    }
  }
  return exit
}

/** The SQLite unit of work. */
export const layer = Layer.effect(
  UnitOfWork,
  Effect.gen(function* () {
    const { transaction } = yield* SqliteDatabase
    return UnitOfWork.of({
      run: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.flatMap(Effect.context<R>(), (context) =>
          Effect.suspend((): Exit.Exit<A, E> => {
            try {
              return transaction(() => {
                const exit = runNow(context, effect)
                if (Exit.isFailure(exit)) throw new Undone(exit)
                return exit
              })
            } catch (error) {
              if (error instanceof Undone) return error.exit as Exit.Exit<A, E>
              return Exit.die(error)
            }
          })
        )
    })
  })
)
