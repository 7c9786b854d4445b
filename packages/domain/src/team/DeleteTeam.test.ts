import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { deleteTeam } from "./DeleteTeam.ts"
import { listMyTeams } from "./ListMyTeams.ts"

describe("deleteTeam", () => {
  it.effect("marks the team deleted for its admin, so no member lists it; an employee cannot", () =>
    Effect.gen(function* () {
      const { team, admin, employee } = yield* seedTeam
      assert.strictEqual((yield* Effect.flip(deleteTeam(employee, team)))._tag, "InsufficientPermissions")
      assert.deepStrictEqual(yield* deleteTeam(admin, team), { team_nanoid: team, deleted: true })
      assert.deepStrictEqual(yield* listMyTeams(admin), [])
      assert.deepStrictEqual(yield* listMyTeams(employee), [])
    }).pipe(Effect.provide(teamUseCases))
  )
})
