import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { getMemberSummary } from "./GetMemberSummary.ts"

describe("getMemberSummary", () => {
  it.effect("shows a member to the team's admin and to the member; not to an outsider", () =>
    Effect.gen(function* () {
      const { team, admin, employee, outsider } = yield* seedTeam
      const summary = yield* getMemberSummary(admin, team, employee.nanoid)
      assert.strictEqual(summary.user.nanoid, employee.nanoid)
      assert.strictEqual((yield* getMemberSummary(employee, team, employee.nanoid)).user.nanoid, employee.nanoid)
      const refused = yield* Effect.flip(getMemberSummary(outsider, team, employee.nanoid))
      assert.strictEqual(refused._tag, "InsufficientPermissions")
      assert.strictEqual((yield* Effect.flip(getMemberSummary(admin, team, outsider.nanoid)))._tag, "MemberNotFound")
    }).pipe(Effect.provide(teamUseCases))
  )
})
