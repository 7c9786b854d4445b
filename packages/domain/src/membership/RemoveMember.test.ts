import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { outboxEvents, seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { MembershipRepository } from "./MembershipRepository.ts"
import { removeMember } from "./RemoveMember.ts"

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
