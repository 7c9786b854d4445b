import { assert, describe, it } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Ref } from "effect"
import { eventually } from "./Eventually.ts"

describe("eventually", () => {
  it.effect("answers the first answer that is not undefined or false, asking again until then", () =>
    Effect.gen(function* () {
      let asked = 0
      const answer = yield* eventually(() => (++asked < 3 ? (asked === 1 ? undefined : false) : `ready after ${asked}`))
      assert.strictEqual(answer, "ready after 3")
      assert.strictEqual(asked, 3)
    })
  )

  it.effect("waits on the live clock under it.effect's TestClock, for an effect another fiber satisfies", () =>
    Effect.gen(function* () {
      const ref = yield* Ref.make<number | undefined>(undefined)
      const waiting = yield* Effect.forkChild(eventually(Ref.get(ref), { every: "5 millis" }))
      yield* Ref.set(ref, 7)
      assert.strictEqual(yield* Fiber.join(waiting), 7)
    })
  )

  it.effect("fails the test past its timeout, naming what it waited for and the last answer", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(eventually(() => false, { timeout: "50 millis", what: "the receipt" }))
      assert.isTrue(Exit.isFailure(exit))
      const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      assert.match(String(defect), /the receipt did not hold within 50ms \(last answer: false\)/)
    })
  )

  it.effect("ends at once when the check fails", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(eventually(Effect.fail("no store"), { timeout: "10 seconds" }))
      assert.deepStrictEqual(exit, Exit.fail("no store"))
    })
  )
})
