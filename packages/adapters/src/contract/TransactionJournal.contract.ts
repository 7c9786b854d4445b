/**
 * The contract of `TransactionJournal`: every version kept and found by its hash and nonce, nonces allocated past the
 * highest one not failed, statuses moved (a reorg's return to `sent` forgets the block), recording a hash twice
 * harmless, and a key's leases held by one holder at a time.
 */
import { assert, describe, it } from "@effect/vitest"
import { type JournaledTransaction, TransactionJournal } from "@svc/domain/chain"
import { Effect } from "effect"
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

/** Registers the suite for `storage`. */
export const transactionJournalContract = (storage: StorageUnderTest) =>
  describe(`TransactionJournal (${storage.name})`, () => {
    it.live("keeps every version whole, by hash and by nonce, and allocates past the highest nonce not failed", () =>
      Effect.gen(function* () {
        const journal = yield* TransactionJournal
        const relayer = wallet(1)
        assert.isUndefined(yield* journal.nextNonce(42161, relayer))
        const first = transaction(0, 0)
        yield* journal.record(first)
        // The relayer's letter case does not matter; another chain or relayer has its own sequence.
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 1)
        assert.isUndefined(yield* journal.nextNonce(1, relayer))
        assert.isUndefined(yield* journal.nextNonce(42161, wallet(3)))
        assert.deepStrictEqual(yield* journal.byHash(first.hash), first)
        // The same bytes again change nothing, even with another status.
        yield* journal.record({ ...first, status: "sent", updatedAt: 9_999 })
        assert.deepStrictEqual(yield* journal.byHash(first.hash), first)

        const replacement = transaction(0, 1, { to: null, carries: [] })
        yield* journal.record(replacement)
        yield* journal.record(transaction(5, 0))
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 6)
        // A mined nonce stays taken (another process's node may not count it yet); a failed one is free again.
        yield* journal.update(transaction(5, 0).hash, { status: "confirmed", at: 2_000 })
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 6)
        yield* journal.update(transaction(5, 0).hash, { status: "failed", at: 2_000 })
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 1)
        yield* journal.update(first.hash, { status: "failed", at: 2_000 })
        yield* journal.update(replacement.hash, { status: "replaced", at: 2_000 })
        assert.strictEqual(yield* journal.nextNonce(42161, relayer), 1)
        yield* journal.update(replacement.hash, { status: "failed", at: 2_000 })
        assert.isUndefined(yield* journal.nextNonce(42161, relayer))
        assert.deepStrictEqual(
          (yield* journal.versions(42161, relayer, 0)).map((version) => version.hash),
          [first.hash, replacement.hash]
        )
        assert.deepStrictEqual((yield* journal.byHash(replacement.hash))?.to, null)
        assert.isUndefined(yield* journal.byHash(hashOf(424242)))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("moves statuses; the monitor sees only unfinished ones; a reorg's return to sent forgets the block", () =>
      Effect.gen(function* () {
        const journal = yield* TransactionJournal
        const relayer = wallet(1)
        for (const [nonce, version] of [
          [1, 0],
          [0, 0],
          [0, 1],
          [2, 0]
        ] as const) {
          yield* journal.record(transaction(nonce, version))
        }
        const block = { number: 2n ** 40n, hash: hashOf(777) }
        const earlier = { number: 2n ** 40n - 5n, hash: hashOf(776) }
        yield* journal.update(hashOf(0), { status: "replaced", at: 2_000 })
        yield* journal.update(hashOf(1), { status: "included", at: 2_001, block })
        yield* journal.update(hashOf(100), { status: "sent", at: 2_002 })
        yield* journal.update(hashOf(200), { status: "confirmed", at: 2_003, block: earlier })
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
        const included = yield* journal.byHash(hashOf(1))
        assert.deepStrictEqual(
          [included?.blockNumber, included?.blockHash, included?.updatedAt],
          [block.number, block.hash, 2_001]
        )
        yield* journal.update(hashOf(1), { status: "sent", at: 2_004 })
        const reorganised = yield* journal.byHash(hashOf(1))
        assert.deepStrictEqual(
          [reorganised?.status, reorganised?.blockNumber, reorganised?.blockHash],
          ["sent", undefined, undefined]
        )
        assert.deepStrictEqual(yield* journal.unfinished(42161, wallet(3)), [])

        // A chain that lost nonce 2 on: its mined version is in flight again; replaced ones, and nonce 0's, are not.
        yield* journal.record(transaction(2, 1))
        yield* journal.update(hashOf(201), { status: "replaced", at: 2_005 })
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

    it.live("lets one holder at a time hold a key's lease, until it lapses or is given back", () =>
      Effect.gen(function* () {
        const journal = yield* TransactionJournal
        const relayer = wallet(1)
        assert.isTrue(yield* journal.lease(42161, relayer, "send", "a", 1_000, 6_000))
        // Held: another holder waits; the holder itself renews; other leases, keys and chains are their own.
        assert.isFalse(yield* journal.lease(42161, relayer, "send", "b", 2_000, 7_000))
        assert.isTrue(yield* journal.lease(42161, relayer.toUpperCase() as typeof relayer, "send", "a", 2_000, 8_000))
        assert.isFalse(yield* journal.lease(42161, relayer, "send", "b", 7_999, 9_000))
        assert.isTrue(yield* journal.lease(42161, relayer, "monitor", "b", 2_000, 7_000))
        assert.isTrue(yield* journal.lease(42161, wallet(3), "send", "b", 2_000, 7_000))
        assert.isTrue(yield* journal.lease(1, relayer, "send", "b", 2_000, 7_000))
        // Lapsed: anyone takes it, and the old holder no longer holds it.
        assert.isTrue(yield* journal.lease(42161, relayer, "send", "b", 8_000, 9_000))
        assert.isFalse(yield* journal.lease(42161, relayer, "send", "a", 8_500, 9_500))
        // Given back by someone else than its holder: nothing changes; by its holder: free at once.
        yield* journal.release(42161, relayer, "send", "a")
        assert.isFalse(yield* journal.lease(42161, relayer, "send", "c", 8_600, 9_600))
        yield* journal.release(42161, relayer, "send", "b")
        assert.isTrue(yield* journal.lease(42161, relayer, "send", "c", 8_600, 9_600))
      }).pipe(Effect.provide(storage.layer()))
    )
  })
