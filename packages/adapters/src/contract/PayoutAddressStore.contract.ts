/**
 * The contract of payout addresses and duplicate pairs (decisions 0108, 0109): a user's payout address moved only from
 * the address it has, found by address in any case; one proof per user, replaced by a newer one and taken once; changes
 * kept, the last one found, a report marked once and only with its token's hash; one pair per two users whatever the
 * order or address, found from either user, recorded once of many concurrent records; all of it joining a unit of work.
 */
import { assert, describe, it } from "@effect/vitest"
import type { WalletAddress } from "@svc/domain/Evm"
import { payoutAddressTypedData } from "@svc/domain/eip712"
import type { PayoutChangeId, UserId } from "@svc/domain/Ids"
import { DuplicateAccounts, type IssuedPayoutProof, PayoutAddressStore, type PayoutChange } from "@svc/domain/payout"
import { UnitOfWork } from "@svc/domain/UnitOfWork"
import { newUser, UserRepository } from "@svc/domain/user"
import { Effect, Exit, Option } from "effect"
import { userId, wallet } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

const address = (n: number) => wallet(n) as WalletAddress

const proof = (user: UserId, salt: string): IssuedPayoutProof => ({
  user_nanoid: user,
  salt,
  address: address(0xbeef),
  bundle: payoutAddressTypedData(
    { chainId: 42161, verifyingContract: `0x${"1".repeat(40)}` },
    { from: wallet(1), to: `0x${"3".repeat(40)}`, salt, expires: "9999999999" },
    { user, payoutAddress: address(0xbeef) }
  )
})

const change = (n: number, user: UserId, created_at: string): PayoutChange => ({
  nanoid: `wa-${String(n).padStart(12, "0")}` as PayoutChangeId,
  user_nanoid: user,
  address: address(0xbeef),
  previous_address: null,
  wallet: address(1),
  salt: String(n),
  address_signature: `0x${"ab".repeat(65)}`,
  wallet_signature: `0x${"cd".repeat(65)}`,
  report_token_hash: `hash-${n}`,
  created_at,
  reported_at: null
})

/** Registers the suite for `storage`. */
export const payoutAddressStoreContract = (storage: StorageUnderTest) =>
  describe(`PayoutAddressStore and DuplicateAccounts (${storage.name})`, () => {
    it.live("a payout address moves only from the one it has; users are found by it in any case", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        for (const n of [1, 2]) {
          yield* users.insert(newUser({ nanoid: userId(n), wallet: wallet(n), created_at: `2026-01-0${n}T00:00:00Z` }))
        }
        const set = yield* users.setPayoutAddress(userId(1), null, address(0xbeef))
        assert.strictEqual(set.payout_address, address(0xbeef))
        assert.strictEqual(Option.getOrThrow(yield* users.findById(userId(1))).payout_address, address(0xbeef))
        const stale = yield* Effect.flip(users.setPayoutAddress(userId(1), null, address(0xcafe)))
        assert.strictEqual(stale._tag, "StaleState")
        yield* users.setPayoutAddress(userId(2), null, address(0xbeef))
        const found = yield* users.findByPayoutAddress(`0x${address(0xbeef).slice(2).toUpperCase()}`)
        assert.deepStrictEqual(
          found.map((u) => u.nanoid),
          [userId(1), userId(2)]
        )
        const cleared = yield* users.setPayoutAddress(userId(1), address(0xbeef), null)
        assert.isFalse("payout_address" in cleared)
        assert.isFalse("payout_address" in Option.getOrThrow(yield* users.findById(userId(1))))
        assert.deepStrictEqual(
          (yield* users.findByPayoutAddress(address(0xbeef))).map((u) => u.nanoid),
          [userId(2)]
        )
        assert.strictEqual((yield* Effect.flip(users.setPayoutAddress(userId(9), null, address(1))))._tag, "StaleState")
        // In a unit that fails, the address is not moved.
        const failed = yield* Effect.exit(
          UnitOfWork.use((unit) =>
            unit.run(Effect.andThen(users.setPayoutAddress(userId(1), null, address(0xcafe)), Effect.fail("no")))
          )
        )
        assert.isTrue(Exit.isFailure(failed))
        assert.isFalse("payout_address" in Option.getOrThrow(yield* users.findById(userId(1))))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("one proof per user, the newest, taken once; changes kept, the last found, a report marked once", () =>
      Effect.gen(function* () {
        const store = yield* PayoutAddressStore
        yield* store.issueProof(proof(userId(1), "10"), 9_999_999_999)
        yield* store.issueProof(proof(userId(1), "11"), 9_999_999_999)
        assert.deepStrictEqual(Option.getOrThrow(yield* store.findProof(userId(1))), proof(userId(1), "11"))
        assert.isFalse(yield* store.consumeProof(userId(1), "10"))
        const takes = yield* Effect.all(
          Array.from({ length: 5 }, () => store.consumeProof(userId(1), "11")),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(takes.filter(Boolean).length, 1)
        assert.isTrue(Option.isNone(yield* store.findProof(userId(1))))

        yield* store.recordChange(change(1, userId(1), "2026-01-01T00:00:01.000Z"))
        yield* store.recordChange(change(2, userId(1), "2026-01-01T00:00:02.000Z"))
        yield* store.recordChange(change(3, userId(2), "2026-01-01T00:00:03.000Z"))
        assert.deepStrictEqual(
          Option.getOrThrow(yield* store.latestChange(userId(1))),
          change(2, userId(1), "2026-01-01T00:00:02.000Z")
        )
        assert.isTrue(Option.isNone(yield* store.latestChange(userId(9))))
        const second = change(2, userId(1), "2026-01-01T00:00:02.000Z")
        assert.isFalse(yield* store.markReported(second.nanoid, "hash-1", "2026-01-02T00:00:00.000Z"))
        assert.isTrue(yield* store.markReported(second.nanoid, "hash-2", "2026-01-02T00:00:00.000Z"))
        assert.isFalse(yield* store.markReported(second.nanoid, "hash-2", "2026-01-03T00:00:00.000Z"))
        assert.deepStrictEqual(Option.getOrThrow(yield* store.findChange(second.nanoid)), {
          ...second,
          reported_at: "2026-01-02T00:00:00.000Z"
        })
        // A unit that fails takes no proof and keeps no change.
        yield* store.issueProof(proof(userId(3), "12"), 9_999_999_999)
        yield* Effect.exit(
          UnitOfWork.use((unit) =>
            unit.run(
              Effect.gen(function* () {
                yield* store.consumeProof(userId(3), "12")
                yield* store.recordChange(change(4, userId(3), "2026-01-01T00:00:04.000Z"))
                return yield* Effect.fail("no")
              })
            )
          )
        )
        assert.isTrue(Option.isSome(yield* store.findProof(userId(3))))
        assert.isTrue(Option.isNone(yield* store.latestChange(userId(3))))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a pair of users is recorded once, whatever its order or address, and found from either user", () =>
      Effect.gen(function* () {
        const pairs = yield* DuplicateAccounts
        const pair = {
          older: userId(1),
          newer: userId(2),
          address: address(0xbeef),
          detected_at: "2026-01-01T00:00:00Z"
        }
        const records = yield* Effect.all(
          Array.from({ length: 5 }, () => pairs.record(pair)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(records.filter(Boolean).length, 1)
        assert.isFalse(yield* pairs.record({ ...pair, older: userId(2), newer: userId(1), address: address(0xcafe) }))
        yield* pairs.record({ ...pair, newer: userId(3) })
        assert.deepStrictEqual(
          (yield* pairs.ofUsers([userId(2)])).map((p) => [p.older, p.newer, p.address]),
          [[userId(1), userId(2), address(0xbeef)]]
        )
        assert.strictEqual((yield* pairs.ofUsers([userId(1), userId(3)])).length, 2)
        assert.deepStrictEqual(yield* pairs.ofUsers([]), [])
        const inFailedUnit = yield* Effect.exit(
          UnitOfWork.use((unit) =>
            unit.run(Effect.andThen(pairs.record({ ...pair, newer: userId(4) }), Effect.fail("no")))
          )
        )
        assert.isTrue(Exit.isFailure(inFailedUnit))
        assert.deepStrictEqual(yield* pairs.ofUsers([userId(4)]), [])
      }).pipe(Effect.provide(storage.layer()))
    )
  })
