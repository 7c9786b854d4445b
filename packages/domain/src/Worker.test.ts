import { assert, describe, it } from "@effect/vitest"
import { Clock, Deferred, Effect, Fiber, Logger } from "effect"
import { TestClock } from "effect/testing"
import { type Changes, StorageChanges } from "./StorageChanges.ts"
import { repeatQuietly, workerOutages } from "./Worker.ts"

describe("repeatQuietly", () => {
  it.effect(
    "through an outage: one line when it starts, none while it lasts, one when it ends; the wait doubles, bounded",
    () =>
      Effect.gen(function* () {
        const lines: Array<string> = []
        const passes: Array<number> = []
        // Fails at its 2nd to 6th pass: an outage of five failed passes.
        const pass = Effect.gen(function* () {
          passes.push(yield* Clock.currentTimeMillis)
          if (passes.length >= 2 && passes.length <= 6) return yield* Effect.fail(new Error("database down"))
        })
        const logger = Logger.make<unknown, void>(({ logLevel, message }) => {
          lines.push(`${logLevel}: ${String((Array.isArray(message) ? message : [message])[0])}`)
        })
        const worker = yield* repeatQuietly("test worker", pass, { every: "1 second", maxBackoff: "10 seconds" }).pipe(
          Effect.provide(Logger.layer([logger])),
          Effect.forkChild
        )
        yield* TestClock.adjust("7 seconds")
        // Passes at 0 s (works), then 1, 3 and 7 s (fail, each followed by a wait of 2, 4, then 8 s).
        assert.deepStrictEqual(passes, [0, 1000, 3000, 7000])
        assert.deepStrictEqual(lines, ["Warn: test worker fails; retrying with backoff, quietly until it works again"])
        const [outage] = workerOutages()
        assert.deepStrictEqual(outage, { worker: "test worker", since: 1000, reason: "database down", failures: 3 })
        yield* TestClock.adjust("30 seconds")
        // Then 15 and 25 s (fail; the wait bounded at 10 s), 35 s (works), then every second again.
        assert.deepStrictEqual(passes.slice(0, 8), [0, 1000, 3000, 7000, 15_000, 25_000, 35_000, 36_000])
        assert.deepStrictEqual(lines.slice(1), ["Info: test worker works again after 34 s (5 failed passes)"])
        assert.deepStrictEqual(workerOutages(), [])
        yield* Fiber.interrupt(worker)
      })
  )

  it.effect("an interrupted worker leaves no outage behind", () =>
    Effect.gen(function* () {
      const worker = yield* repeatQuietly("stopped worker", Effect.fail("down"), { every: "1 second" }).pipe(
        Effect.provide(Logger.layer([])),
        Effect.forkChild
      )
      yield* TestClock.adjust("1 second")
      assert.strictEqual(workerOutages()[0]?.worker, "stopped worker")
      yield* Fiber.interrupt(worker)
      assert.deepStrictEqual(workerOutages(), [])
    })
  )
})

describe("repeatQuietly woken by the storage's changes", () => {
  /** Changes told by the test: `change()` wakes whoever watches. */
  const toldChanges = (streaming: boolean) => {
    let woken = Deferred.makeUnsafe<void>()
    const changes: Changes = {
      streaming: Effect.succeed(streaming),
      watch: () => Effect.sync(() => Deferred.await(woken))
    }
    // Replaced before it completes: a waiter it wakes watches the next one.
    const change = Effect.sync(() => {
      const done = woken
      woken = Deferred.makeUnsafe<void>()
      Deferred.doneUnsafe(done, Effect.void)
    })
    return { changes, change }
  }

  it.effect("while changes are told: a pass at once after a change, else one every streamingEvery", () =>
    Effect.gen(function* () {
      const { changes, change } = toldChanges(true)
      const passes: Array<number> = []
      const worker = yield* repeatQuietly(
        "woken worker",
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => passes.push(now))),
        { every: "50 millis", wokenBy: { topic: "events", streamingEvery: "1 second" } }
      ).pipe(Effect.provideService(StorageChanges, changes), Effect.forkChild)
      yield* TestClock.adjust("300 millis")
      yield* change
      yield* TestClock.adjust("1700 millis")
      // At 0, at the change (300 ms), then a second after it; never every 50 ms.
      assert.deepStrictEqual(passes, [0, 300, 1300])
      yield* Fiber.interrupt(worker)
    })
  )

  it.effect("while no change is told: a pass every `every`, as without", () =>
    Effect.gen(function* () {
      const { changes } = toldChanges(false)
      const passes: Array<number> = []
      const worker = yield* repeatQuietly(
        "polling worker",
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => passes.push(now))),
        { every: "50 millis", wokenBy: { topic: "events", streamingEvery: "1 second" } }
      ).pipe(Effect.provideService(StorageChanges, changes), Effect.forkChild)
      yield* TestClock.adjust("200 millis")
      assert.deepStrictEqual(passes, [0, 50, 100, 150, 200])
      yield* Fiber.interrupt(worker)
    })
  )
})
