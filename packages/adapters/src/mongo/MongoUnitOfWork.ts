/**
 * The unit of work on MongoDB: the unit runs inside one transaction (the database's runner: majority reads and
 * commit), its session in the fiber's context (`UnitSession`), where every store's write takes it (decision 0080). A
 * transaction that meets a write conflict runs the unit again from the start (decision 0096). A unit inside another
 * joins it.
 */
import { UnitOfWork } from "@svc/domain/UnitOfWork"
import { Effect, Layer } from "effect"
import { MongoDatabase } from "./MongoDatabase.ts"
import { isMongoFailure } from "./MongoErrors.ts"
import { UnitSession } from "./MongoTransaction.ts"

/** The MongoDB unit of work. */
export const layer = Layer.effect(
  UnitOfWork,
  Effect.gen(function* () {
    const { transaction } = yield* MongoDatabase
    return UnitOfWork.of({
      run: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.flatMap(Effect.service(UnitSession), (joined) =>
          joined !== undefined
            ? effect
            : transaction((session) => Effect.provideService(effect, UnitSession, session)).pipe(
                // The unit's own failures are its effect's; the transaction's (its commit) are the storage's.
                Effect.catch((error) => (isMongoFailure(error) ? Effect.die(error) : Effect.fail(error as E)))
              )
        )
    })
  })
)
