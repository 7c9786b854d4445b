import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { getTeam } from "./GetTeam.ts"

describe("getTeam", () => {
  it.effect("shows the team with its administrators and balance to its members; refuses an outsider", () =>
    Effect.gen(function* () {
      const { team, admin, employee, outsider } = yield* seedTeam
      const view = yield* getTeam(admin, team)
      assert.deepStrictEqual(
        view.administrators.map((a) => [a.user_nanoid, a.type]),
        [[admin.nanoid, "team_admin"]]
      )
      assert.strictEqual(view.balance, "0")
      assert.strictEqual((yield* getTeam(employee, team)).nanoid, team)
      assert.strictEqual((yield* Effect.flip(getTeam(outsider, team)))._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(teamUseCases))
  )
})
