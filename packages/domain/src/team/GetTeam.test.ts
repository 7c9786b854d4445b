import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { getTeam } from "./GetTeam.ts"

describe("getTeam", () => {
  it.effect(
    "shows the team with its administrators to its members, the balance to those who may read it; refuses an outsider",
    () =>
      Effect.gen(function* () {
        const { team, admin, employee, outsider } = yield* seedTeam
        const view = yield* getTeam(admin, team)
        assert.deepStrictEqual(
          view.administrators.map((a) => [a.user_nanoid, a.type]),
          [[admin.nanoid, "team_admin"]]
        )
        assert.strictEqual(view.balance, "0")
        // An employee reads the team, not its balance (GET /v2/balance refuses them too: `balance.read`).
        const asEmployee = yield* getTeam(employee, team)
        assert.strictEqual(asEmployee.nanoid, team)
        assert.notProperty(asEmployee, "balance")
        assert.strictEqual((yield* Effect.flip(getTeam(outsider, team)))._tag, "InsufficientPermissions")
      }).pipe(Effect.provide(teamUseCases))
  )
})
