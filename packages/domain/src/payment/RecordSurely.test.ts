import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Ref } from "effect"
import { TestClock } from "effect/testing"
import { recordSurely } from "./RecordSurely.ts"

/** A record that dies (as a storage failure does) its first `failures` times, then answers `true`; and its tries. */
const flakyRecord = (failures: number) =>
  Effect.map(Ref.make(0), (tries) => ({
    tries,
    record: Effect.flatMap(
      Ref.updateAndGet(tries, (n) => n + 1),
      (n) => (n <= failures ? Effect.die(new Error(`connection reset ${n}`)) : Effect.succeed(true))
    )
  }))

describe("recordSurely", () => {
  it.effect("a record the storage fails for a moment is tried again, and answers once it is taken", () =>
    Effect.gen(function* () {
      const { tries, record } = yield* flakyRecord(2)
      const fiber = yield* Effect.forkChild(recordSurely(record))
      yield* TestClock.adjust("1 second")
      assert.isTrue(yield* Fiber.join(fiber))
      assert.strictEqual(yield* Ref.get(tries), 3)
    })
  )

  it.effect("a storage that stays down ends in the defect after five more tries", () =>
    Effect.gen(function* () {
      const { tries, record } = yield* flakyRecord(100)
      const fiber = yield* Effect.forkChild(recordSurely(record))
      yield* TestClock.adjust("1 minute")
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause))
      assert.strictEqual(yield* Ref.get(tries), 6)
    })
  )

  it.effect("a failure the record answers (not the storage's) is not tried again", () =>
    Effect.gen(function* () {
      const tries = yield* Ref.make(0)
      const refused = Effect.andThen(
        Ref.update(tries, (n) => n + 1),
        Effect.fail("claim lost" as const)
      )
      assert.strictEqual(yield* Effect.flip(recordSurely(refused)), "claim lost")
      assert.strictEqual(yield* Ref.get(tries), 1)
    })
  )
})
