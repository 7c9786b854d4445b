/**
 * The token buckets behind the rate limits (decision 0035), on a clock the test sets: a key gets its limit per minute,
 * is refused with the seconds until a token is back, refills with time, and the buckets stay bounded in memory.
 */
import { assert, describe, it } from "@effect/vitest"
import { makeBuckets } from "./RateLimit.ts"

const takeAll = (buckets: ReturnType<typeof makeBuckets>, key: string, times: number, now: number) =>
  Array.from({ length: times }, () => buckets.take(key, now)._tag)

describe("rate limit buckets", () => {
  it("a key gets its limit, then is refused with the seconds until a token is back; other keys are apart", () => {
    const buckets = makeBuckets(3, 100)
    assert.deepStrictEqual(takeAll(buckets, "a", 3, 0), ["Allowed", "Allowed", "Allowed"])
    // 3 a minute: one token every 20 s.
    assert.deepStrictEqual(buckets.take("a", 0), { _tag: "Refused", retryAfterSeconds: 20 })
    assert.deepStrictEqual(buckets.take("a", 15_000), { _tag: "Refused", retryAfterSeconds: 5 })
    assert.strictEqual(buckets.take("b", 15_000)._tag, "Allowed")
  })

  it("a bucket refills with time, up to its limit and no further", () => {
    const buckets = makeBuckets(3, 100)
    takeAll(buckets, "a", 3, 0)
    assert.strictEqual(buckets.take("a", 19_999)._tag, "Refused")
    assert.strictEqual(buckets.take("a", 20_000)._tag, "Allowed")
    assert.strictEqual(buckets.take("a", 20_000)._tag, "Refused")
    // An hour later the bucket holds its limit, not sixty times it.
    assert.deepStrictEqual(takeAll(buckets, "a", 4, 3_620_000), ["Allowed", "Allowed", "Allowed", "Refused"])
  })

  it("remembers at most maxKeys keys, and forgets idle ones", () => {
    const buckets = makeBuckets(10, 100)
    for (let i = 0; i < 10_000; i++) buckets.take(`ip-${i}`, i)
    assert.isAtMost(buckets.size(), 100)
    // A minute later every bucket is full again, the same as none: the next take forgets them.
    buckets.take("late", 10_000 + 60_000)
    assert.strictEqual(buckets.size(), 1)
  })
})
