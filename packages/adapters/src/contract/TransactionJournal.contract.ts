/**
 * The contract of `TransactionJournal`: every version kept and found by its hash, nonce and what it carries, nonces
 * allocated past the highest one not failed; a new version recorded only under the current token of the key's lease
 * it names, and a key's leases held by one holder at a time, a larger fencing token for each new holder (decision
 * 0090); statuses moved only from the status they have, only as the transaction machine allows, and under a lease when
 * fenced (a reorganisation's return to `sent` forgets the block); recording a hash twice harmless.
 */
import { assert, describe, it } from "@effect/vitest"
import { type JournaledTransaction, type KeyFence, TransactionJournal } from "@svc/domain/chain"
import type { FencingToken } from "@svc/domain/Lease"
import { Effect, Exit, Option } from "effect"
import type { Hex } from "viem"
import { wallet } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

const hashOf = (n: number): Hex => `0x${n.toString(16).padStart(64, "0")}`

const transaction = (nonce: number, version: number, overrides: Partial<JournaledTransaction> = {}) =>
  ({
    hash: hashOf(nonce * 100 + version),
    chainId: 42161,
    relayer: wallet(1).toLowerCase() as JournaledTransaction["relayer"],
    nonce,
    to: wallet(2),
    data: "0xabcdef",
    gas: 123_456n,
    maxFeePerGas: 2n ** 70n + BigInt(version),
    maxPriorityFeePerGas: 1_000_000n,
    raw: `0x02f8${"ab".repeat(100)}`,
    carries: [`payment:${nonce}`],
    status: "signed",
    createdAt: 1_000 + nonce * 10 + version,
    updatedAt: 1_000 + nonce * 10 + version,
    ...overrides
  }) satisfies JournaledTransaction

/** The key's `send` lease, taken for the test's sends: its fence. */
const sendFence = Effect.gen(function* () {
  const journal = yield* TransactionJournal
  const lease = yield* journal.lease(42161, wallet(1), "send", undefined, 0, Number.MAX_SAFE_INTEGER)
  return { lease: "send", token: Option.getOrThrow(lease).token } satisfies KeyFence
})

/** The key's `monitor` lease, taken for the test's replacements: its fence. */
const monitorFence = Effect.gen(function* () {
  const journal = yield* TransactionJournal
  const lease = yield* journal.lease(42161, wallet(1), "monitor", undefined, 0, Number.MAX_SAFE_INTEGER)
  return { lease: "monitor", token: Option.getOrThrow(lease).token } satisfies KeyFence
})

/** Moves `hash` from `from` to `to` at `at`, unfenced (a receipt's forward move). */
const move = (
  hash: Hex,
  from: JournaledTransaction["status"],
  to: JournaledTransaction["status"],
  at: number,
  block?: { readonly number: bigint; readonly hash: Hex }
) => TransactionJournal.use((journal) => journal.transition(hash, { from, to, at, block }))

/** Registers the suite for `storage`. */
export const transactionJournalContract = (storage: StorageUnderTest) =>
  describe(`TransactionJournal (${storage.name})`, () => {
    it.live("keeps every version whole, by hash and by nonce, and allocates past the highest nonce not failed", () =>
      Effect.gen(function* () {
        const journal = yield* TransactionJournal
        const fence = yield* sendFence
        const relayer = wallet(1)
        assert.isUndefined(yield* journal.nextNonce(42161, relayer))
        const first = transaction(0, 0)
        assert.isTrue(yield* journal.record(first, fence))
        // The relayer's letter case does not matter; another chain or relayer has its own sequence.
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 1)
        assert.isUndefined(yield* journal.nextNonce(1, relayer))
        assert.isUndefined(yield* journal.nextNonce(42161, wallet(3)))
        assert.deepStrictEqual(yield* journal.byHash(first.hash), first)
        // The same bytes again change nothing, even with another status.
        assert.isTrue(yield* journal.record({ ...first, status: "sent", updatedAt: 9_999 }, fence))
        assert.deepStrictEqual(yield* journal.byHash(first.hash), first)

        // A nonce is the sender's once: another call on it is refused while a version of it is live; a replacement
        // (the same call, fees raised) is the monitor's.
        const replacement = transaction(0, 1, { to: null, carries: [] })
        assert.isFalse(yield* journal.record(replacement, fence))
        assert.isTrue(yield* journal.record(replacement, yield* monitorFence))
        yield* journal.record(transaction(5, 0), fence)
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 6)
        // A mined nonce stays taken (another process's node may not count it yet); a failed one is free again.
        assert.isTrue(yield* move(transaction(5, 0).hash, "signed", "confirmed", 2_000))
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 6)
        yield* journal.record(transaction(6, 0), fence)
        yield* move(transaction(6, 0).hash, "signed", "failed", 2_000)
        yield* move(transaction(5, 0).hash, "confirmed", "replaced", 2_000)
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 6)
        yield* move(first.hash, "signed", "failed", 2_000)
        assert.isFalse(yield* journal.record(transaction(0, 2), fence))
        yield* move(replacement.hash, "signed", "failed", 2_000)
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 6)
        // Every version of nonce 6 failed: the nonce is free again, for another call.
        assert.isTrue(yield* journal.record(transaction(6, 1, { data: "0x0102" }), fence))
        assert.deepStrictEqual(
          (yield* journal.versions(42161, relayer, 0)).map((version) => version.hash),
          [first.hash, replacement.hash]
        )
        assert.deepStrictEqual((yield* journal.byHash(replacement.hash))?.to, null)
        assert.isUndefined(yield* journal.byHash(hashOf(424242)))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a version is journaled only under the current token of the lease it names; leases take turns", () =>
      Effect.gen(function* () {
        const journal = yield* TransactionJournal
        const relayer = wallet(1)
        const take = (held: FencingToken | undefined, now: number, until: number, lease: "send" | "monitor" = "send") =>
          journal.lease(42161, relayer, lease, held, now, until)
        const a = Option.getOrThrow(yield* take(undefined, 1_000, 6_000))
        // Held: another holder waits; the holder renews with its token; other leases, keys and chains are their own.
        assert.isTrue(Option.isNone(yield* take(undefined, 2_000, 7_000)))
        assert.deepStrictEqual(
          yield* journal.lease(42161, relayer.toUpperCase() as typeof relayer, "send", a.token, 2_000, 8_000),
          Option.some({ token: a.token, until: 8_000 })
        )
        assert.isTrue(Option.isNone(yield* take(undefined, 7_999, 9_000)))
        assert.isTrue(Option.isSome(yield* take(undefined, 2_000, 7_000, "monitor")))
        assert.isTrue(Option.isSome(yield* journal.lease(42161, wallet(3), "send", undefined, 2_000, 7_000)))
        assert.isTrue(Option.isSome(yield* journal.lease(1, relayer, "send", undefined, 2_000, 7_000)))
        assert.isTrue(yield* journal.record(transaction(0, 0), { lease: "send", token: a.token }))
        // Lapsed: another takes it under a larger token; the first holder, paused past its lease, can neither renew
        // nor journal a version (the nonce it allocated is the new holder's to allocate).
        const b = Option.getOrThrow(yield* take(undefined, 8_000, 9_000))
        assert.isAbove(b.token, a.token)
        assert.isTrue(Option.isNone(yield* take(a.token, 8_500, 9_500)))
        assert.isFalse(yield* journal.record(transaction(1, 0), { lease: "send", token: a.token }))
        assert.isUndefined(yield* journal.byHash(transaction(1, 0).hash))
        // Nor under another lease's token.
        assert.isFalse(yield* journal.record(transaction(1, 0), { lease: "monitor", token: b.token }))
        assert.isTrue(yield* journal.record(transaction(1, 1), { lease: "send", token: b.token }))
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 2)
        // Given back with a stale token: nothing changes; with its own: free at once, and taken under a larger token.
        yield* journal.release(42161, relayer, "send", a.token)
        assert.isTrue(Option.isNone(yield* take(undefined, 8_600, 9_600)))
        yield* journal.release(42161, relayer, "send", b.token)
        const c = Option.getOrThrow(yield* take(undefined, 8_600, 9_600))
        assert.isAbove(c.token, b.token)
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("statuses move from the status they have, as the machine allows; fenced moves need the current token", () =>
      Effect.gen(function* () {
        const journal = yield* TransactionJournal
        const fence = yield* sendFence
        const relayer = wallet(1)
        const monitor = yield* monitorFence
        for (const [nonce, version] of [
          [1, 0],
          [0, 0],
          [0, 1],
          [2, 0]
        ] as const) {
          assert.isTrue(yield* journal.record(transaction(nonce, version), version === 0 ? fence : monitor))
        }
        const block = { number: 2n ** 40n, hash: hashOf(777) }
        const earlier = { number: 2n ** 40n - 5n, hash: hashOf(776) }
        yield* move(hashOf(0), "signed", "replaced", 2_000)
        yield* move(hashOf(1), "signed", "included", 2_001, block)
        yield* move(hashOf(100), "signed", "sent", 2_002)
        yield* move(hashOf(200), "signed", "confirmed", 2_003, earlier)
        // From a status it no longer has: nothing moves (the `included` the monitor recorded stays).
        assert.isFalse(yield* move(hashOf(1), "signed", "sent", 2_004))
        assert.strictEqual((yield* journal.byHash(hashOf(1)))?.status, "included")
        // A move the machine does not allow is a defect, whatever the store holds.
        const illegal = yield* Effect.exit(move(hashOf(0), "replaced", "signed", 2_004))
        assert.isTrue(Exit.isFailure(illegal) && !illegal.cause.reasons.some((reason) => reason._tag === "Fail"))
        // What the monitor checks is still on chain: mined versions from a block on, by block.
        assert.deepStrictEqual(
          (yield* journal.minedSince(42161, relayer, earlier.number)).map((t) => t.hash),
          [hashOf(200), hashOf(1)]
        )
        assert.deepStrictEqual(
          (yield* journal.minedSince(42161, relayer, block.number)).map((t) => t.hash),
          [hashOf(1)]
        )
        assert.deepStrictEqual(yield* journal.minedSince(42161, relayer, block.number + 1n), [])
        assert.deepStrictEqual(
          (yield* journal.unfinished(42161, relayer)).map((t) => [t.nonce, t.hash, t.status]),
          [
            [0, hashOf(1), "included"],
            [1, hashOf(100), "sent"]
          ]
        )
        // Unfinished versions by what they carry, on any relayer.
        assert.deepStrictEqual(
          (yield* journal.unfinishedCarrying(42161, "payment:1")).map((t) => t.hash),
          [hashOf(100)]
        )
        assert.deepStrictEqual(yield* journal.unfinishedCarrying(42161, "payment:2"), [])
        const included = yield* journal.byHash(hashOf(1))
        assert.deepStrictEqual(
          [included?.blockNumber, included?.blockHash, included?.updatedAt],
          [block.number, block.hash, 2_001]
        )
        // A reorganisation is the monitor's: only under its lease's current token; then the block is forgotten.
        const stale = { lease: "monitor", token: (monitor.token + 1) as FencingToken } satisfies KeyFence
        const reorganise = (fenceWith: KeyFence) =>
          journal.transition(hashOf(1), { from: "included", to: "sent", at: 2_004 }, fenceWith)
        assert.isFalse(yield* reorganise(stale))
        assert.isTrue(yield* reorganise(monitor))
        const reorganised = yield* journal.byHash(hashOf(1))
        assert.deepStrictEqual(
          [reorganised?.status, reorganised?.blockNumber, reorganised?.blockHash],
          ["sent", undefined, undefined]
        )
        assert.deepStrictEqual(yield* journal.unfinished(42161, wallet(3)), [])

        // A chain that lost nonce 2 on: its mined version is in flight again; replaced ones, and nonce 0's, are not.
        yield* journal.record(transaction(2, 1), monitor)
        yield* move(hashOf(201), "signed", "replaced", 2_005)
        assert.strictEqual(yield* journal.reopenFrom(42161, relayer, 2, 3_000), 1)
        const reopened = yield* journal.byHash(hashOf(200))
        assert.deepStrictEqual(
          [reopened?.status, reopened?.blockNumber, reopened?.blockHash, reopened?.updatedAt],
          ["sent", undefined, undefined, 3_000]
        )
        assert.strictEqual((yield* journal.byHash(hashOf(201)))?.status, "replaced")
        assert.strictEqual(yield* journal.reopenFrom(42161, relayer, 2, 3_001), 0)
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 3)
      }).pipe(Effect.provide(storage.layer()))
    )
  })
