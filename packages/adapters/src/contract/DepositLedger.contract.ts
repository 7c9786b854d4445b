/**
 * The contract of `DepositLedger`: the follower leased to one holder at a time, its cursor moved with the deposits it
 * read in one step and only by the holder; a known deposit kept, or pending again when reorganised away or read from
 * another block; state changes only from the expected state, with their events once; a team's deposits newest first,
 * in pages.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Deposit, DepositLedger, depositIdOf } from "@svc/domain/deposit"
import { EventOutbox } from "@svc/domain/event"
import { withEvents } from "@svc/domain/UnitOfWork"
import { Effect, Option } from "effect"
import { event, teamId, wallet } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** The nth deposit into team 1 (block n, log n % 3), pending. */
const deposit = (n: number, overrides: Partial<Deposit> = {}): Deposit => ({
  nanoid: depositIdOf(31337, `0x${n.toString(16).padStart(64, "0")}`, n % 3),
  team_nanoid: teamId(1),
  kind: "received",
  amount_cents: 100 * n,
  token_amount: String(1_000_000 * n),
  from: wallet(100 + n),
  to: wallet(1),
  transaction: `0x${n.toString(16).padStart(64, "0")}`,
  block_number: n,
  block_hash: `0x${"b".repeat(63)}${n % 10}`,
  log_index: n % 3,
  state: "pending",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  ...overrides
})

/** Registers the suite for `storage`. */
export const depositLedgerContract = (storage: StorageUnderTest) =>
  describe(`DepositLedger (${storage.name})`, () => {
    it.live("one follower at a time; only its holder moves the cursor, with what it read", () =>
      Effect.gen(function* () {
        const ledger = yield* DepositLedger
        const now = Date.now()
        // Never advanced: held, no cursor.
        assert.deepStrictEqual(yield* ledger.follow("deposits", "a", now, now + 1_000), Option.some(Option.none()))
        assert.deepStrictEqual(yield* ledger.follow("deposits", "b", now, now + 1_000), Option.none())
        assert.isFalse(yield* ledger.advance("deposits", "b", { block: 9, hash: "0x9" }, [deposit(1)]))
        assert.isTrue(yield* ledger.advance("deposits", "a", { block: 10, hash: "0xa" }, [deposit(1), deposit(2)]))
        assert.deepStrictEqual(
          yield* ledger.follow("deposits", "a", now, now + 1_000),
          Option.some(Option.some({ block: 10, hash: "0xa" }))
        )
        // Lapsed: another takes it, and the first no longer writes.
        const later = now + 2_000
        assert.isTrue(Option.isSome(yield* ledger.follow("deposits", "b", later, later + 1_000)))
        assert.isFalse(yield* ledger.advance("deposits", "a", { block: 11, hash: "0xb" }, []))
        yield* ledger.unfollow("deposits", "b")
        assert.isTrue(Option.isSome(yield* ledger.follow("deposits", "c", later, later + 1_000)))
        assert.deepStrictEqual(
          (yield* ledger.withinReorgWindow(0)).map((d) => d.nanoid),
          [deposit(1).nanoid, deposit(2).nanoid]
        )
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a deposit read again is kept; reorganised away or from another block while pending, it is read anew", () =>
      Effect.gen(function* () {
        const ledger = yield* DepositLedger
        const now = Date.now()
        yield* ledger.follow("deposits", "a", now, now + 60_000)
        const advance = (found: ReadonlyArray<Deposit>) =>
          ledger.advance("deposits", "a", { block: 20, hash: "0x14" }, found)
        yield* advance([deposit(3), deposit(4), deposit(5)])
        // In a unit with its event (as the follower moves it): confirmed once; a second move from the same state does
        // nothing, and an event appended again is not repeated.
        const move = (n: number, to: "confirmed" | "reorged") =>
          withEvents(ledger.transition(deposit(n).nanoid, "pending", to, "2026-01-02T00:00:00.000Z"), (moved) =>
            moved ? [event(1)] : []
          )
        assert.isTrue(yield* move(3, "confirmed"))
        assert.isFalse(yield* move(3, "confirmed"))
        assert.isTrue(yield* move(4, "reorged"))
        const outbox = yield* EventOutbox
        assert.strictEqual((yield* outbox.findById(event(1).id))?.sequence, 1)
        // Read again: the confirmed one stays, the reorged one and the pending one from another block are pending anew.
        const moved = `0x${"c".repeat(64)}` as const
        yield* advance([
          deposit(3, { amount_cents: 1 }),
          deposit(4, { block_number: 7, block_hash: moved }),
          deposit(5, { block_number: 8, block_hash: moved })
        ])
        const listed = yield* ledger.list({ team: teamId(1), limit: 10 })
        assert.deepStrictEqual(
          listed.map((d) => [d.nanoid, d.state, d.block_number, d.amount_cents]),
          [
            [deposit(5).nanoid, "pending", 8, 500],
            [deposit(4).nanoid, "pending", 7, 400],
            [deposit(3).nanoid, "confirmed", 3, 300]
          ]
        )
        assert.strictEqual(listed[2]?.updated_at, "2026-01-02T00:00:00.000Z")
        // Confirmed ones are unsettled only within the window.
        assert.deepStrictEqual(
          (yield* ledger.withinReorgWindow(4)).map((d) => d.nanoid),
          [deposit(4).nanoid, deposit(5).nanoid]
        )
        assert.strictEqual((yield* ledger.withinReorgWindow(0)).length, 3)
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a team's deposits newest first (block, then log), in pages; other teams' apart", () =>
      Effect.gen(function* () {
        const ledger = yield* DepositLedger
        const now = Date.now()
        yield* ledger.follow("deposits", "a", now, now + 60_000)
        const mine = [1, 2, 3, 4, 5].map((n) => deposit(n))
        yield* ledger.advance("deposits", "a", { block: 9, hash: "0x9" }, [
          ...mine,
          deposit(6, { team_nanoid: teamId(2) })
        ])
        const first = yield* ledger.list({ team: teamId(1), limit: 2 })
        assert.deepStrictEqual(
          first.map((d) => d.block_number),
          [5, 4]
        )
        const last = first.at(-1) as Deposit
        const next = yield* ledger.list({ team: teamId(1), limit: 10, after: last })
        assert.deepStrictEqual(
          next.map((d) => d.block_number),
          [3, 2, 1]
        )
        assert.deepStrictEqual(
          (yield* ledger.list({ team: teamId(2), limit: 10 })).map((d) => d.block_number),
          [6]
        )
      }).pipe(Effect.provide(storage.layer()))
    )
  })
