import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { testChainUseCases, withTestChainFinanceAdmin } from "../../test/ChainKit.ts"
import { outboxEvents, seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { TestChain } from "../chain/TestChain.ts"
import { MembershipRepository } from "./MembershipRepository.ts"
import { finishPendingRemovals, removalGrace, removeMember } from "./RemoveMember.ts"

describe("removeMember", () => {
  it.effect("removes a member with a member_removed event; the team's last admin stays", () =>
    Effect.gen(function* () {
      const { team, admin, employee } = yield* seedTeam
      const removed = yield* removeMember(admin, team, employee.nanoid)
      assert.deepStrictEqual(removed, { team_nanoid: team, user_nanoid: employee.nanoid, removed: true })
      assert.strictEqual((yield* MembershipRepository.use((m) => m.find(team, employee.nanoid)))._tag, "None")
      const events = yield* outboxEvents
      assert.isTrue(events.some((e) => e.event_type === "team.member_removed" && e.team_nanoid === team))
      assert.strictEqual((yield* Effect.flip(removeMember(admin, team, admin.nanoid)))._tag, "LastAdmin")
      assert.strictEqual((yield* Effect.flip(removeMember(admin, team, employee.nanoid)))._tag, "MemberNotFound")
    }).pipe(Effect.provide(teamUseCases))
  )

  it.effect("an employee cannot remove anyone", () =>
    Effect.gen(function* () {
      const { team, admin, employee } = yield* seedTeam
      const refused = yield* Effect.flip(removeMember(employee, team, admin.nanoid))
      assert.strictEqual(refused._tag, "InsufficientPermissions")
      assert.strictEqual((yield* MembershipRepository.use((m) => m.find(team, admin.nanoid)))._tag, "Some")
    }).pipe(Effect.provide(teamUseCases))
  )
})

describe("removeMember interrupted between the chain and the database (test chain)", () => {
  it.effect("the chain's revocation counts at once: the member may not pay, and recovery finishes the removal", () =>
    Effect.gen(function* () {
      const { team, admin, member, issue } = yield* withTestChainFinanceAdmin
      assert.strictEqual((yield* Effect.exit(issue))._tag, "Success")
      // The process is killed once the chain took the revocation (kill -9): the membership is still there.
      yield* TestChain.use((chain) => chain.set({ answers: "die" }))
      assert.isTrue(Exit.hasDies(yield* Effect.exit(removeMember(admin, team, member.nanoid))))
      yield* TestChain.use((chain) => chain.set({ answers: "kept" }))
      assert.strictEqual((yield* MembershipRepository.use((m) => m.find(team, member.nanoid)))._tag, "Some")
      const refused = yield* Effect.flip(issue)
      assert.strictEqual(refused._tag, "InsufficientPermissions")

      // Within the removal's grace recovery leaves it to its process; past it, it finishes it, with the event.
      assert.strictEqual(yield* finishPendingRemovals(), 0)
      yield* TestClock.adjust(removalGrace)
      assert.strictEqual(yield* finishPendingRemovals(), 1)
      assert.strictEqual((yield* MembershipRepository.use((m) => m.find(team, member.nanoid)))._tag, "None")
      const removed = (yield* outboxEvents).filter((e) => e.event_type === "team.member_removed")
      assert.strictEqual(removed.length, 1)
      assert.strictEqual(yield* finishPendingRemovals(), 0)
    }).pipe(Effect.provide(testChainUseCases))
  )

  it.effect("while the chain still holds the role (the revocation not mined), the member keeps it; then loses it", () =>
    Effect.gen(function* () {
      const { team, admin, member, issue, account } = yield* withTestChainFinanceAdmin
      yield* TestChain.use((chain) => chain.set({ answers: "lost", mining: "manual" }))
      const unknown = yield* Effect.flip(removeMember(admin, team, member.nanoid))
      assert.deepInclude(unknown, { _tag: "AuthorityNotRevoked", maybeSent: true })
      assert.strictEqual((yield* Effect.exit(issue))._tag, "Success")
      yield* TestChain.use((chain) => chain.mine)
      assert.isFalse(yield* ChainGateway.use((chain) => chain.hasRole(account, "team_finance_admin", member.wallet)))
      assert.strictEqual((yield* Effect.flip(issue))._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(testChainUseCases))
  )
})
