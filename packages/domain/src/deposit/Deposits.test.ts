import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { chainLayer } from "../../test/ChainKit.ts"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { TeamId } from "../Ids.ts"
import { type Deposit, type DepositState, depositIdOf } from "./Deposit.ts"
import { DepositLedger } from "./DepositLedger.ts"
import { DepositsQuery, listDeposits } from "./Deposits.ts"

const now = "2026-01-01T00:00:00.000Z"

/** A deposit into `team` of `cents`, read from log `log` of block `block`. */
const deposit = (team: TeamId, block: number, log: number, cents: number, state: DepositState = "pending"): Deposit => {
  const transaction = `0x${(block * 1000 + log).toString(16).padStart(64, "0")}` as const
  return {
    nanoid: depositIdOf(42161, transaction, log),
    team_nanoid: team,
    kind: "received",
    amount_cents: cents,
    token_amount: String(cents * 10_000),
    from: `0x${"a".repeat(40)}`,
    to: `0x${"b".repeat(40)}`,
    transaction,
    block_number: block,
    block_hash: `0x${block.toString(16).padStart(64, "0")}`,
    log_index: log,
    state,
    created_at: now,
    updated_at: now
  }
}

/** The deposits recorded as the follower records them (its lease, then one advance to the last block). */
const record = (deposits: ReadonlyArray<Deposit>) =>
  DepositLedger.use((ledger) =>
    Effect.gen(function* () {
      const held = yield* ledger.follow("deposits", undefined, 0, Number.MAX_SAFE_INTEGER)
      const token = Option.getOrThrow(held).lease.token
      const last = Math.max(...deposits.map((d) => d.block_number))
      const advanced = yield* ledger.advance(
        "deposits",
        token,
        { block: last, hash: `0x${last.toString(16).padStart(64, "0")}` },
        deposits
      )
      assert.isTrue(advanced)
    })
  )

const query = (team: TeamId, page: { readonly limit?: string; readonly cursor?: string } = {}) =>
  Schema.decodeUnknownSync(DepositsQuery)({ team_nanoid: team, ...page })

describe("listDeposits without a chain", () => {
  it.effect("a team's deposits newest first, in pages, for its managers only; no confirmations", () =>
    Effect.gen(function* () {
      const { team, admin, employee, outsider } = yield* seedTeam
      const other = deposit("te-000000000999" as TeamId, 13, 0, 7)
      yield* record([
        deposit(team, 10, 1, 100),
        deposit(team, 12, 0, 300, "confirmed"),
        deposit(team, 10, 4, 200),
        other,
        deposit(team, 12, 3, 400, "reorged")
      ])
      const chain = yield* ChainGateway.present.pipe(Effect.provide(ChainGateway.layerAbsent(42161)))
      assert.isTrue(Option.isNone(chain))
      const all = yield* listDeposits(admin, query(team), chain)
      assert.deepStrictEqual(
        all.data.items.map((d) => [d.block_number, d.log_index, d.amount_cents, d.state, d.confirmations]),
        [
          [12, 3, 400, "reorged", 0],
          [12, 0, 300, "confirmed", 0],
          [10, 4, 200, "pending", 0],
          [10, 1, 100, "pending", 0]
        ]
      )
      assert.isNull(all.data.next_cursor)
      const first = all.data.items[3]
      assert.deepStrictEqual(first, {
        deposit_nanoid: depositIdOf(42161, first?.transaction as `0x${string}`, 1),
        team_nanoid: team,
        kind: "received",
        amount_cents: 100,
        token_amount: "1000000",
        from: `0x${"a".repeat(40)}`,
        transaction: `0x${(10_001).toString(16).padStart(64, "0")}`,
        block_number: 10,
        log_index: 1,
        confirmations: 0,
        state: "pending",
        created_at: now
      })
      // Pages of three: the cursor names where the next starts, and the last page has none.
      const page1 = yield* listDeposits(admin, query(team, { limit: "3" }), chain)
      assert.strictEqual(page1.data.items.length, 3)
      assert.strictEqual(page1.data.next_cursor, "10-4")
      const page2 = yield* listDeposits(admin, query(team, { limit: "3", cursor: "10-4" }), chain)
      assert.deepStrictEqual(
        page2.data.items.map((d) => d.amount_cents),
        [100]
      )
      assert.isNull(page2.data.next_cursor)
      // A page exactly as long as what is left has no next one.
      assert.isNull((yield* listDeposits(admin, query(team, { limit: "4" }), chain)).data.next_cursor)
      // The team's employee and an outsider may not read them.
      for (const caller of [employee, outsider]) {
        const refused = yield* Effect.flip(listDeposits(caller, query(team), chain))
        assert.strictEqual(refused._tag, "InsufficientPermissions")
      }
    }).pipe(Effect.provide(teamUseCases))
  )

  it("refuses a cursor or page size it did not give", () => {
    for (const page of [{ cursor: "10" }, { cursor: "a-1" }, { limit: "0" }, { limit: "1001" }]) {
      assert.throws(() => query("te-000000000001" as TeamId, page))
    }
  })
})

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("listDeposits with a chain", (it) => {
  it.effect("tells how deep each deposit is now (a reorged one, or one beyond the head, 0)", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      const chain = yield* ChainGateway.present
      assert.isTrue(Option.isSome(chain))
      const head = Number(yield* ChainGateway.use((c) => c.blockNumber))
      yield* record([
        deposit(team, head, 0, 100),
        deposit(team, head - 4, 0, 200, "confirmed"),
        deposit(team, head - 4, 1, 300, "reorged"),
        deposit(team, head + 5, 0, 400)
      ])
      const listed = yield* listDeposits(admin, query(team), chain)
      const depth = Number(yield* ChainGateway.use((c) => c.blockNumber)) - head
      assert.deepStrictEqual(
        listed.data.items.map((d) => [d.amount_cents, d.confirmations]),
        [
          [400, 0],
          [100, 1 + depth],
          [300, 0],
          [200, 5 + depth]
        ]
      )
    }).pipe(Effect.provide(teamUseCases))
  )
})
