import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { listMyTeams } from "./ListMyTeams.ts"

describe("listMyTeams", () => {
  it.effect("lists the caller's active teams with their role and member count; none for an outsider", () =>
    Effect.gen(function* () {
      const { team, admin, employee, outsider } = yield* seedTeam
      const [mine] = yield* listMyTeams(admin)
      assert.deepStrictEqual([mine?.nanoid, mine?.role, mine?.member_count], [team, "team_admin", 2])
      assert.strictEqual((yield* listMyTeams(employee))[0]?.role, "team_employee")
      assert.deepStrictEqual(yield* listMyTeams(outsider), [])
    }).pipe(Effect.provide(teamUseCases))
  )
})
