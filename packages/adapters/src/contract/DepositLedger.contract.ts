/**
 * The contract of `DepositLedger`: the follower leased to one holder at a time, a larger fencing token for each new
 * holder (decision 0090), its cursor moved with the deposits it read in one step and only by the current token; a
 * known deposit kept, or pending again when reorganised away or read from another block; state changes only from the
 * expected state, only by the current token and only as the deposit machine allows, with their events once; a team's
 * deposits newest first, in pages.
 */
import { assert, describe, it } from "@effect/vitest"
import { type Deposit, DepositLedger, depositIdOf } from "@svc/domain/deposit"
import { EventOutbox } from "@svc/domain/event"
import type { FencingToken } from "@svc/domain/Lease"
import { withEvents } from "@svc/domain/UnitOfWork"
import { Effect, Exit, Option } from "effect"
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

/** The follower's token when `follow` took or kept it; a test failure otherwise. */
const tokenOf = (held: Option.Option<{ readonly lease: { readonly token: FencingToken } }>) =>
  Option.getOrThrow(held).lease.token

/** Registers the suite for `storage`. */
export const depositLedgerContract = (storage: StorageUnderTest) =>
  describe(`DepositLedger (${storage.name})`, () => {
    it.live("one follower at a time; only its current token moves the cursor, with what it read", () =>
      Effect.gen(function* () {
        const ledger = yield* DepositLedger
        const now = Date.now()
        // Never advanced: held, no cursor; another is refused meanwhile.
        const a = yield* ledger.follow("deposits", undefined, now, now + 1_000)
        assert.deepStrictEqual(
          Option.map(a, (held) => held.cursor),
          Option.some(Option.none())
        )
        const aToken = tokenOf(a)
        assert.deepStrictEqual(yield* ledger.follow("deposits", undefined, now, now + 1_000), Option.none())
        assert.isFalse(yield* ledger.advance("deposits", (aToken + 1) as FencingToken, { block: 9, hash: "0x9" }, []))
        assert.isTrue(yield* ledger.advance("deposits", aToken, { block: 10, hash: "0xa" }, [deposit(1), deposit(2)]))
        // Kept by its token: the same token, the cursor it moved.
        const kept = yield* ledger.follow("deposits", aToken, now, now + 1_000)
        assert.deepStrictEqual(
          Option.map(kept, (held) => [held.lease.token, held.cursor]),
          Option.some([aToken, Option.some({ block: 10, hash: "0xa" })])
        )
        // Lapsed: another takes it under a larger token, and the first, paused past its lease, no longer writes.
        const later = now + 2_000
        const bToken = tokenOf(yield* ledger.follow("deposits", undefined, later, later + 1_000))
        assert.isAbove(bToken, aToken)
        assert.isFalse(yield* ledger.advance("deposits", aToken, { block: 11, hash: "0xb" }, [deposit(3)]))
        assert.isTrue(Option.isNone(yield* ledger.follow("deposits", aToken, later, later + 1_000)))
        yield* ledger.unfollow("deposits", aToken)
        assert.isTrue(Option.isNone(yield* ledger.follow("deposits", undefined, later, later + 1_000)))
        yield* ledger.unfollow("deposits", bToken)
        assert.isTrue(Option.isSome(yield* ledger.follow("deposits", undefined, later, later + 1_000)))
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
        const token = tokenOf(yield* ledger.follow("deposits", undefined, now, now + 60_000))
        const advance = (found: ReadonlyArray<Deposit>) =>
          ledger.advance("deposits", token, { block: 20, hash: "0x14" }, found)
        yield* advance([deposit(3), deposit(4), deposit(5)])
        // In a unit with its event (as the follower moves it): confirmed once; a second move from the same state does
        // nothing, and an event appended again is not repeated.
        const change = (to: "confirmed" | "reorged", by = token) => ({
          from: "pending" as const,
          to,
          updatedAt: "2026-01-02T00:00:00.000Z",
          follower: "deposits",
          token: by
        })
        const move = (n: number, to: "confirmed" | "reorged") =>
          withEvents(ledger.transition(deposit(n).nanoid, change(to)), (moved) => (moved ? [event(1)] : []))
        assert.isFalse(yield* ledger.transition(deposit(3).nanoid, change("confirmed", (token + 1) as FencingToken)))
        assert.isTrue(yield* move(3, "confirmed"))
        assert.isFalse(yield* move(3, "confirmed"))
        assert.isTrue(yield* move(4, "reorged"))
        // A move the deposit machine does not allow is a defect, whatever the store holds.
        const illegal = yield* Effect.exit(
          ledger.transition(deposit(3).nanoid, { ...change("confirmed"), from: "confirmed", to: "pending" })
        )
        assert.isTrue(Exit.isFailure(illegal) && !illegal.cause.reasons.some((reason) => reason._tag === "Fail"))
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
        const token = tokenOf(yield* ledger.follow("deposits", undefined, now, now + 60_000))
        const mine = [1, 2, 3, 4, 5].map((n) => deposit(n))
        yield* ledger.advance("deposits", token, { block: 9, hash: "0x9" }, [
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
