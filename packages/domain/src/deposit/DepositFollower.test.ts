/**
 * The deposit follower on the in-memory chain, under `TestClock` (decision 0095): deposits recorded and announced
 * once deep enough, a reorganisation dropping or withdrawing them, and one follower at a time, fenced. The end-to-end
 * path on anvil is apps/api's Deposits.test.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { seedTestChainTeam, testChainUseCases } from "../../test/ChainKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import { TestChain } from "../chain/TestChain.ts"
import * as DepositFollower from "./DepositFollower.ts"
import { DepositLedger } from "./DepositLedger.ts"

const usdc = (n: number) => BigInt(n) * 10n ** 6n
const mine = TestChain.use((chain) => chain.mine)

/** A transfer of `amount` into `account` from outside, mined in a block of its own; answers the block. */
const deposit = (account: `0x${string}`, amount: bigint) =>
  Effect.andThen(
    TestChain.use((chain) => chain.transfer(account, amount)),
    Effect.map(mine, Number)
  )

const listed = (team: string) =>
  Effect.map(
    DepositLedger.use((l) => l.list({ team: team as never, limit: 10 })),
    (deposits) => deposits.map((d) => [d.amount_cents, d.state])
  )

/** The `deposit.received` events in the outbox: their status. */
const announced = Effect.map(outboxEvents, (events) =>
  events
    .filter((e) => e.event_type === "deposit.received")
    .map((e) => [(e.data as { status: string }).status, (e.data as { confirmations: number }).confirmations])
)

describe("DepositFollower.followOnce on the test chain", () => {
  it.effect("records a transfer into a team's account, announced once three deep; a second is a second deposit", () =>
    Effect.gen(function* () {
      const { team, account } = yield* seedTestChainTeam
      const options = { confirmations: 3, startBlock: 1 }
      const block = yield* deposit(account, usdc(1000))
      const first = yield* DepositFollower.followOnce(options)
      assert.isTrue(first.followed)
      assert.strictEqual(first.cursor?.block, block)
      assert.deepStrictEqual(yield* listed(team), [[100_000, "pending"]])
      assert.deepStrictEqual(yield* announced, [])
      const pass = () => DepositFollower.followOnce(options, first.token)
      // Only the holder reads: another follower (no token) does nothing meanwhile; the holder keeps its token.
      assert.isFalse((yield* DepositFollower.followOnce(options)).followed)
      assert.strictEqual((yield* pass()).token, first.token)
      yield* mine
      assert.strictEqual((yield* pass()).confirmed, 0)
      yield* mine
      assert.strictEqual((yield* pass()).confirmed, 1)
      assert.deepStrictEqual(yield* announced, [["complete", 3]])
      yield* mine
      assert.strictEqual((yield* pass()).confirmed, 0)
      assert.deepStrictEqual(yield* announced, [])
      yield* deposit(account, usdc(25))
      yield* pass()
      assert.deepStrictEqual(yield* listed(team), [
        [2_500, "pending"],
        [100_000, "confirmed"]
      ])
    }).pipe(Effect.provide(testChainUseCases))
  )

  it.effect("a reorganisation drops a pending deposit silently and withdraws a confirmed one (reverted)", () =>
    Effect.gen(function* () {
      const { team, account } = yield* seedTestChainTeam
      const options = { confirmations: 2, startBlock: 1 }
      yield* deposit(account, usdc(10))
      yield* mine
      const first = yield* DepositFollower.followOnce(options)
      assert.strictEqual(first.confirmed, 1)
      yield* deposit(account, usdc(20))
      yield* DepositFollower.followOnce(options, first.token)
      assert.deepStrictEqual(yield* listed(team), [
        [2_000, "pending"],
        [1_000, "confirmed"]
      ])
      // Every block since the first deposit is replaced, without the transfers.
      yield* TestChain.use((chain) => chain.reorganise(3))
      const after = yield* DepositFollower.followOnce(options, first.token)
      assert.strictEqual(after.reorged, 2)
      assert.deepStrictEqual(yield* listed(team), [
        [2_000, "reorged"],
        [1_000, "reorged"]
      ])
      assert.deepStrictEqual(yield* announced, [
        ["complete", 2],
        ["reverted", 3]
      ])
    }).pipe(Effect.provide(testChainUseCases))
  )

  it.effect("a follower paused past its lease changes nothing once another took over (fenced)", () =>
    Effect.gen(function* () {
      const { team, account } = yield* seedTestChainTeam
      const options = { confirmations: 1, startBlock: 1 }
      const paused = yield* DepositFollower.followOnce(options)
      yield* deposit(account, usdc(5))
      // Its lease lapses while it is paused: another process takes the follower, under a larger token.
      yield* TestClock.adjust("31 seconds")
      const other = yield* DepositFollower.followOnce(options)
      assert.isTrue(other.followed)
      assert.isAbove(other.token ?? 0, paused.token ?? 0)
      // The paused one wakes: its pass and its writes are refused; the deposit is recorded and announced once.
      assert.isFalse((yield* DepositFollower.followOnce(options, paused.token)).followed)
      const cursor = { block: 99, hash: "0x00" as const }
      assert.isFalse(yield* DepositLedger.use((l) => l.advance("deposits", paused.token as never, cursor, [])))
      assert.deepStrictEqual(yield* listed(team), [[500, "confirmed"]])
      assert.deepStrictEqual(yield* announced, [["complete", 1]])
    }).pipe(Effect.provide(testChainUseCases))
  )
})
