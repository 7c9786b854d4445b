import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { issuedBatch } from "../../test/PaymentKit.ts"
import { seedTeam, storageLayer } from "../../test/UseCaseKit.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import * as IssuedRequestExpiry from "./IssuedRequestExpiry.ts"
import { defaultIssuedRequestLimits, IssuedRequestPolicy } from "./IssuedRequestPolicy.ts"

/** Now, in the tests (unix seconds). */
const now = 1_000_000
const hour = 3600

/** The salts still stored, of `salts`. */
const kept = (salts: ReadonlyArray<string>) =>
  Effect.filter(salts, (salt) =>
    IssuedRequestStore.use((s) => s.find(salt as never)).pipe(
      Effect.as(true),
      Effect.catchTag("TypedDataNotFound", () => Effect.succeed(false))
    )
  )

describe("IssuedRequestExpiry", () => {
  it.effect("deletes the requests never executed once expired for the keeping time; keeps the rest", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      yield* TestClock.setTime(now * 1000)
      const issue = (salt: string, expires: number) =>
        IssuedRequestStore.use((s) => s.issue(issuedBatch(team, admin, salt, expires)))
      yield* issue("1", now - 2 * hour) // expired two hours ago: gone
      yield* issue("2", now - hour) // expired exactly the keeping time ago: gone
      yield* issue("3", now - hour + 1) // within the keeping time: kept (a PUT still answers EXPIRED_TYPED_DATA)
      yield* issue("4", now + 600) // still executable: kept
      yield* issue("5", now - 2 * hour) // expired but executing: kept
      yield* IssuedRequestStore.use((s) =>
        s.claim("5" as never, { now: now * 1000, until: now * 1000 + 20_000, signature: "0x" })
      )
      assert.strictEqual(yield* IssuedRequestExpiry.sweep(), 2)
      assert.deepStrictEqual(yield* kept(["1", "2", "3", "4", "5"]), ["3", "4", "5"])
      // A second sweep finds nothing more; one after the keeping time of "3" takes it.
      assert.strictEqual(yield* IssuedRequestExpiry.sweep(), 0)
      yield* TestClock.adjust(1000)
      assert.strictEqual(yield* IssuedRequestExpiry.sweep(), 1)
      assert.deepStrictEqual(yield* kept(["3", "4", "5"]), ["4", "5"])
    }).pipe(Effect.provide(storageLayer))
  )

  it.effect("keeps expired requests for the policy's keeping time", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      yield* TestClock.setTime(now * 1000)
      yield* IssuedRequestStore.use((s) => s.issue(issuedBatch(team, admin, "1", now - 2 * hour)))
      const policy = { ...defaultIssuedRequestLimits, keptAfterExpirySeconds: 3 * hour }
      const sweep = IssuedRequestExpiry.sweep().pipe(Effect.provideService(IssuedRequestPolicy, policy))
      assert.strictEqual(yield* sweep, 0)
      yield* TestClock.adjust(hour * 1000)
      assert.strictEqual(yield* sweep, 1)
    }).pipe(Effect.provide(storageLayer))
  )

  it.effect("a backlog larger than one batch goes in one sweep", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      yield* TestClock.setTime(now * 1000)
      yield* Effect.forEach(
        Array.from({ length: 1203 }, (_, i) => String(i + 1)),
        (salt) => IssuedRequestStore.use((s) => s.issue(issuedBatch(team, admin, salt, now - 2 * hour))),
        { discard: true }
      )
      assert.strictEqual(yield* IssuedRequestExpiry.sweep(), 1203)
      assert.strictEqual(yield* IssuedRequestExpiry.sweep(), 0)
    }).pipe(Effect.provide(storageLayer))
  )

  it.effect("the sweeper's layer sweeps every minute while it lives", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      yield* TestClock.setTime(now * 1000)
      yield* IssuedRequestStore.use((s) => s.issue(issuedBatch(team, admin, "1", now - hour + 30)))
      yield* Layer.build(IssuedRequestExpiry.layer())
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* kept(["1"]), ["1"])
      // The next pass, a minute on, is past the request's keeping time.
      yield* TestClock.adjust(60_000)
      assert.deepStrictEqual(yield* kept(["1"]), [])
    }).pipe(Effect.scoped, Effect.provide(storageLayer))
  )
})
