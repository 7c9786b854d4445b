import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { outboxEvents, seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { getTeam } from "../team/GetTeam.ts"
import { listTeamUsers } from "../team/ListTeamUsers.ts"
import { finishPendingBlocks, setMemberBlock } from "./BlockMember.ts"
import { getMemberSummary } from "./GetMemberSummary.ts"
import { MembershipRepository } from "./MembershipRepository.ts"

describe("setMemberBlock", () => {
  it.effect("blocks and unblocks a member, each with one team.member_blocked; asking again changes nothing", () =>
    Effect.gen(function* () {
      const { team, admin, employee } = yield* seedTeam
      const blocked = yield* setMemberBlock(admin, team, employee.nanoid, { blocked: true, reason: "two accounts" })
      assert.deepInclude(blocked, { team_nanoid: team, user_nanoid: employee.nanoid, blocked: true })
      assert.strictEqual(blocked.reason, "two accounts")
      assert.isString(blocked.blocked_since)
      const again = yield* setMemberBlock(admin, team, employee.nanoid, { blocked: true, reason: "other" })
      assert.deepStrictEqual(again, blocked)
      // Still listed, shown blocked.
      const users = yield* listTeamUsers(admin, team, {})
      const listed = users.users.find((u) => u.nanoid === employee.nanoid)
      assert.deepInclude(listed, { blocked: true, blocked_since: blocked.blocked_since })
      const unblocked = yield* setMemberBlock(admin, team, employee.nanoid, { blocked: false })
      assert.deepStrictEqual(unblocked, {
        team_nanoid: team,
        user_nanoid: employee.nanoid,
        blocked: false,
        blocked_since: null,
        reason: ""
      })
      yield* setMemberBlock(admin, team, employee.nanoid, { blocked: false })
      const events = (yield* outboxEvents).filter((e) => e.event_type === "team.member_blocked")
      assert.deepStrictEqual(
        events.map((e) => [e.team_nanoid, e.data.user_nanoid, e.data.blocked, e.data.changed_by]),
        [
          [team, employee.nanoid, true, admin.nanoid],
          [team, employee.nanoid, false, admin.nanoid]
        ]
      )
      assert.strictEqual(events[0]?.data.reason, "two accounts")
    }).pipe(Effect.provide(teamUseCases))
  )

  it.effect("a blocked member reads the team and their own summary, and nothing else", () =>
    Effect.gen(function* () {
      const { team, admin, employee } = yield* seedTeam
      yield* setMemberBlock(admin, team, employee.nanoid, { blocked: true })
      yield* getTeam(employee, team)
      const summary = yield* getMemberSummary(employee, team, employee.nanoid)
      assert.deepInclude(summary, { blocked: true })
      const refused = yield* Effect.flip(getMemberSummary(employee, team, admin.nanoid))
      assert.strictEqual(refused._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(teamUseCases))
  )

  it.effect("the team keeps an admin who is not blocked; only admins block; a blocked admin acts no more", () =>
    Effect.gen(function* () {
      const { team, admin, employee, outsider } = yield* seedTeam
      assert.strictEqual(
        (yield* Effect.flip(setMemberBlock(admin, team, admin.nanoid, { blocked: true })))._tag,
        "LastAdmin"
      )
      assert.strictEqual(
        (yield* Effect.flip(setMemberBlock(employee, team, admin.nanoid, { blocked: true })))._tag,
        "InsufficientPermissions"
      )
      assert.strictEqual(
        (yield* Effect.flip(setMemberBlock(admin, team, outsider.nanoid, { blocked: true })))._tag,
        "MemberNotFound"
      )
      // A second admin: the first may now be blocked, and can then no longer list the team or unblock itself.
      const membership = yield* MembershipRepository.use((m) => m.find(team, employee.nanoid))
      if (membership._tag === "None") return assert.fail("the employee is a member")
      yield* MembershipRepository.use((m) => m.remove(team, employee.nanoid))
      yield* MembershipRepository.use((m) => m.insert({ ...membership.value, role: "team_admin" }))
      yield* setMemberBlock(employee, team, admin.nanoid, { blocked: true })
      const refused = yield* Effect.flip(listTeamUsers(admin, team, {}))
      assert.strictEqual(refused.message, "You are blocked in this team")
      assert.strictEqual(
        (yield* Effect.flip(setMemberBlock(admin, team, admin.nanoid, { blocked: false })))._tag,
        "InsufficientPermissions"
      )
      assert.strictEqual(
        (yield* Effect.flip(setMemberBlock(employee, team, employee.nanoid, { blocked: true })))._tag,
        "LastAdmin"
      )
    }).pipe(Effect.provide(teamUseCases))
  )

  it.effect("recovery finishes a block its process left marked, with one event; a fresh mark waits", () =>
    Effect.gen(function* () {
      const { team, admin, employee } = yield* seedTeam
      yield* TestClock.setTime(Date.parse("2026-01-01T00:10:00.000Z"))
      const mark = { state: "blocking" as const, reason: "left", by: admin.nanoid }
      yield* MembershipRepository.use((m) =>
        m.moveBlock(team, employee.nanoid, "active", { ...mark, since: "2026-01-01T00:00:00.000Z" })
      )
      yield* MembershipRepository.use((m) =>
        m.moveBlock(team, admin.nanoid, "active", { ...mark, since: "2026-01-01T00:09:00.000Z" })
      )
      assert.strictEqual(yield* finishPendingBlocks(), 1)
      assert.strictEqual(yield* finishPendingBlocks(), 0)
      const finished = yield* MembershipRepository.use((m) => m.find(team, employee.nanoid))
      assert.strictEqual(finished._tag === "Some" ? finished.value.block?.state : undefined, "blocked")
      const events = (yield* outboxEvents).filter((e) => e.event_type === "team.member_blocked")
      assert.deepStrictEqual(
        events.map((e) => [e.data.user_nanoid, e.data.blocked, e.data.reason]),
        [[employee.nanoid, true, "left"]]
      )
    }).pipe(Effect.provide(teamUseCases))
  )
})
