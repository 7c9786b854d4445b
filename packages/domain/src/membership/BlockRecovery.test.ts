/**
 * A block interrupted between the chain and the database is finished by the one recovery path (decisions 0093, 0095
 * and 0107), on the test chain under `TestClock`: the process killed once the chain took the revocation, or the
 * revocation never sent (the chain unreachable, then the process gone). Either way the member is blocked in the API
 * at once, and after the block's grace recovery revokes (again: idempotent), records the block once, with one event.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { testChainUseCases, withTestChainFinanceAdmin } from "../../test/ChainKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { TestChain } from "../chain/TestChain.ts"
import { blockGrace, finishPendingBlocks, setMemberBlock } from "./BlockMember.ts"
import { MembershipRepository } from "./MembershipRepository.ts"

/** The finance admin of `withTestChainFinanceAdmin`, with what the tests read of their block. */
const withFinanceAdmin = Effect.gen(function* () {
  const seeded = yield* withTestChainFinanceAdmin
  const { member } = seeded
  const hasRole = ChainGateway.use((chain) => chain.hasRole(seeded.account, "team_finance_admin", member.wallet))
  const blockState = Effect.map(
    MembershipRepository.use((m) => m.find(seeded.team, member.nanoid)),
    (found) => (found._tag === "Some" ? found.value.block?.state : undefined)
  )
  const blockEvents = Effect.map(outboxEvents, (events) =>
    events.filter((e) => e.event_type === "team.member_blocked").map((e) => [e.data.user_nanoid, e.data.blocked])
  )
  return { ...seeded, hasRole, blockState, blockEvents }
})

describe("a block interrupted between the chain and the database (test chain)", () => {
  it.effect("killed once the chain took the revocation: blocked in the API at once, recovery records it once", () =>
    Effect.gen(function* () {
      const { team, admin, member, issue, hasRole, blockState, blockEvents } = yield* withFinanceAdmin
      yield* TestChain.use((chain) => chain.set({ answers: "die" }))
      const block = setMemberBlock(admin, team, member.nanoid, { blocked: true, reason: "left" })
      assert.isTrue(Exit.hasDies(yield* Effect.exit(block)))
      yield* TestChain.use((chain) => chain.set({ answers: "kept" }))
      // The restart finds the mark: the member neither acts nor is paid, and the chain revoked them already.
      assert.strictEqual(yield* blockState, "blocking")
      assert.strictEqual((yield* Effect.flip(issue)).message, "You are blocked in this team")
      assert.isFalse(yield* hasRole)
      assert.deepStrictEqual(yield* blockEvents, [])

      // Within the grace recovery leaves the block to its process; past it, it finishes it, with the event, once.
      assert.strictEqual(yield* finishPendingBlocks(), 0)
      yield* TestClock.adjust(blockGrace)
      assert.strictEqual(yield* finishPendingBlocks(), 1)
      assert.strictEqual(yield* finishPendingBlocks(), 0)
      assert.strictEqual(yield* blockState, "blocked")
      assert.deepStrictEqual(yield* blockEvents, [[member.nanoid, true]])
      assert.isFalse(yield* hasRole)
    }).pipe(Effect.provide(testChainUseCases))
  )

  it.effect(
    "the revocation never sent (chain unreachable, process gone): recovery sends it once the chain answers",
    () =>
      Effect.gen(function* () {
        const { team, admin, member, issue, hasRole, blockState, blockEvents } = yield* withFinanceAdmin
        yield* TestChain.use((chain) => chain.set({ reachable: false }))
        const refused = yield* Effect.flip(setMemberBlock(admin, team, member.nanoid, { blocked: true }))
        assert.strictEqual(refused._tag, "BlockNotConfirmed")
        assert.strictEqual(yield* blockState, "blocking")
        assert.strictEqual((yield* Effect.flip(issue)).message, "You are blocked in this team")
        // Past the grace with the chain still away, the mark stays for the next pass; unblocking waits for it too.
        yield* TestClock.adjust(blockGrace)
        assert.strictEqual(yield* finishPendingBlocks(), 0)
        assert.strictEqual(yield* blockState, "blocking")
        const early = yield* Effect.flip(setMemberBlock(admin, team, member.nanoid, { blocked: false }))
        assert.strictEqual(early._tag, "BlockInProgress")

        yield* TestChain.use((chain) => chain.set({ reachable: true }))
        assert.isTrue(yield* hasRole)
        assert.strictEqual(yield* finishPendingBlocks(), 1)
        assert.isFalse(yield* hasRole)
        assert.strictEqual(yield* blockState, "blocked")
        assert.deepStrictEqual(yield* blockEvents, [[member.nanoid, true]])
      }).pipe(Effect.provide(testChainUseCases))
  )
})
