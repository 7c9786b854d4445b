/**
 * The unit of work on MongoDB: the unit runs inside one transaction, its session in the fiber's context
 * (`UnitSession`), where every store's write takes it (decision 0080).
 *
 * On jongodb the unit is one of the transactions of the next joint commit (`MongoTransaction.ts`): should that commit
 * fail, the unit runs again, alone; its exit is that of its last run. A unit inside another joins it.
 */
import { UnitOfWork } from "@svc/domain/UnitOfWork"
import { Cause, Context, Effect, Exit, Layer } from "effect"
import { MongoDatabase } from "./MongoDatabase.ts"
import { inTransaction, UnitSession } from "./MongoTransaction.ts"

/** Thrown inside the transaction to abort it; never leaves the unit. */
class Undone extends Error {
  readonly exit: Exit.Exit<unknown, unknown>
  constructor(exit: Exit.Exit<unknown, unknown>) {
    super("the unit of work failed")
    this.exit = exit
  }
}

/** The MongoDB unit of work. */
export const layer = Layer.effect(
  UnitOfWork,
  Effect.gen(function* () {
    const { client } = yield* MongoDatabase
    return UnitOfWork.of({
      run: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.flatMap(Effect.context<R>(), (context) => {
          if (Context.getOrUndefined(context, UnitSession) !== undefined) return effect
          const unit = inTransaction(client, async (session) => {
            const exit = await Effect.runPromiseExitWith(Context.add(context, UnitSession, session))(effect)
            if (Exit.isFailure(exit)) throw new Undone(exit)
            return exit
          })
          return Effect.flatMap(Effect.exit(unit), (ended): Exit.Exit<A, E> => {
            if (Exit.isSuccess(ended)) return ended.value
            const defect = Cause.squash(ended.cause)
            return defect instanceof Undone ? (defect.exit as Exit.Exit<A, E>) : Exit.failCause(ended.cause)
          })
        })
    })
  })
)
