/**
 * `keepRenewed` under `TestClock`: a holder renews every third of its lease while it works, and stops before its next
 * write once the store says the lease is another's, or once it lapsed with no renewal taken.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, Ref } from "effect"
import { TestClock } from "effect/testing"
import { fencingTokenOf, keepRenewed, type Lease } from "./Lease.ts"

const held: Lease = { token: fencingTokenOf(7), until: 3_000 }

/** Work that writes once a second, as long as it runs: what it wrote. */
const writing = (writes: Ref.Ref<number>) =>
  Effect.forever(
    Effect.andThen(
      // not a wait: the work under test takes a second between writes, on the test's clock
      Effect.sleep("1 second"),
      Ref.update(writes, (n) => n + 1)
    )
  )

describe("keepRenewed", () => {
  it.effect("renews every third of the lease while the work runs, keeping the token; answers the work's result", () =>
    Effect.gen(function* () {
      const renewals = yield* Ref.make<Array<number>>([])
      const fiber = yield* Effect.forkChild(
        keepRenewed({
          lease: "test",
          held,
          leaseMillis: 3_000,
          renew: (until) =>
            Effect.as(
              Ref.update(renewals, (all) => [...all, until]),
              Option.some({ token: held.token, until })
            )
          // not a wait: work of 10 s, on the test's clock
        })(Effect.as(Effect.sleep("10 seconds"), "done"))
      )
      yield* TestClock.adjust("10 seconds")
      assert.deepStrictEqual(yield* Fiber.join(fiber), "done")
      // Every second (a third of 3 s), each to a second plus the lease.
      assert.deepStrictEqual((yield* Ref.get(renewals)).slice(0, 3), [4_000, 5_000, 6_000])
    })
  )

  it.effect("stops the work before its next write once the store answers that the token is another's", () =>
    Effect.gen(function* () {
      const writes = yield* Ref.make(0)
      const answers = [Option.some({ token: held.token, until: 4_000 }), Option.none()]
      const fiber = yield* Effect.forkChild(
        keepRenewed({
          lease: "test",
          held,
          leaseMillis: 3_000,
          renew: () => Effect.succeed(answers.shift() ?? Option.none())
        })(writing(writes))
      )
      yield* TestClock.adjust("10 seconds")
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isFailure(exit) && String(exit.cause).includes("LeaseLost"))
      // Lost at the second renewal (2 s): no write after it.
      assert.isAtMost(yield* Ref.get(writes), 2)
    })
  )

  it.effect("stops the work once the lease lapsed while every renewal failed", () =>
    Effect.gen(function* () {
      const writes = yield* Ref.make(0)
      const fiber = yield* Effect.forkChild(
        keepRenewed({
          lease: "test",
          held,
          leaseMillis: 3_000,
          renew: () => Effect.fail("the store is down")
        })(writing(writes))
      )
      yield* TestClock.adjust("10 seconds")
      const exit = yield* Fiber.await(fiber)
      assert.isTrue(Exit.isFailure(exit) && String(exit.cause).includes("LeaseLost"))
      // The lease ran until 3 s: the renewal at 3 s finds it lapsed.
      assert.isAtMost(yield* Ref.get(writes), 3)
    })
  )
})
