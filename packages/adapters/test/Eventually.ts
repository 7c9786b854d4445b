/**
 * The one way a test waits for something another fiber, process or server does (issue 36, item 5): `eventually`
 * asks `check` again and again until it answers, and fails the test, naming what it waited for and its last answer,
 * when it does not within `timeout`. A test never sleeps a fixed time and then asserts: that is slow when the machine
 * is fast and flaky when it is loaded (`scripts/fixed-sleeps.test.ts` finds any that do). Time the test itself moves
 * is a `TestClock`'s, not this.
 *
 * It waits on the live clock even inside `it.effect` (whose clock is a `TestClock` nobody moves while the test waits
 * for real I/O).
 */
import { Clock, Duration, Effect } from "effect"

/** How `eventually` waits. */
export interface EventuallyOptions {
  /** How long it asks before it fails the test (default 30 s: above any one step on a loaded 2-core machine). */
  readonly timeout?: Duration.Input | undefined
  /** How long between two asks (default 20 ms). */
  readonly every?: Duration.Input | undefined
  /** What is waited for, for the failure's message. */
  readonly what?: string | undefined
}

/** What a check answers while what it waits for has not happened: `undefined` or `false`. */
type NotYet = undefined | false

const live = Clock.Clock.defaultValue()

/** A sleep on the live clock, whatever clock the test runs on. */
const sleepLive = (duration: Duration.Duration) => Effect.provideService(Effect.sleep(duration), Clock.Clock, live)

/**
 * Waits until `check` answers something other than `undefined` or `false`, and answers that. `check` is an effect (a
 * store's read, a chain's) or a function (a receiver's list); its failures and defects end the wait at once, as
 * they would end the test. Past `timeout`, the test fails with what was awaited and the last answer.
 *
 * @example
 * const row = yield* eventually(journal.byHash(hash), { what: "the journal's row" })
 * yield* eventually(() => receiver.received.length >= 2 || undefined, { timeout: "10 seconds" })
 */
export const eventually = <A, E = never, R = never>(
  check: Effect.Effect<A | NotYet, E, R> | (() => A | NotYet),
  options: EventuallyOptions = {}
): Effect.Effect<Exclude<A, NotYet>, E, R> => {
  const ask: Effect.Effect<A | NotYet, E, R> = Effect.isEffect(check) ? check : Effect.sync(check)
  const timeout = Duration.fromInputUnsafe(options.timeout ?? Duration.seconds(30))
  const every = Duration.fromInputUnsafe(options.every ?? Duration.millis(20))
  return Effect.gen(function* () {
    const deadline = live.currentTimeMillisUnsafe() + Duration.toMillis(timeout)
    while (true) {
      const answer = yield* ask
      if (answer !== undefined && answer !== false) return answer as Exclude<A, NotYet>
      if (live.currentTimeMillisUnsafe() >= deadline) {
        return yield* Effect.die(
          new Error(
            `eventually: ${options.what ?? "the check"} did not hold within ${Duration.format(timeout)} (last answer: ${String(answer)})`
          )
        )
      }
      yield* sleepLive(every)
    }
  })
}
