import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { getTeamSettings } from "./GetTeamSettings.ts"
import { defaultTeamSettings } from "./TeamSettings.ts"
import { updateTeamSettings } from "./UpdateTeamSettings.ts"

describe("updateTeamSettings", () => {
  it.effect("changes the fields given and keeps the others; an employee changes nothing", () =>
    Effect.gen(function* () {
      const { team, admin, employee } = yield* seedTeam
      const next = yield* updateTeamSettings(admin, team, { invoice_prefix: "INV-" })
      assert.deepStrictEqual(next, { ...defaultTeamSettings, invoice_prefix: "INV-" })
      const refused = yield* Effect.flip(updateTeamSettings(employee, team, { invoice_prefix: "X" }))
      assert.strictEqual(refused._tag, "InsufficientPermissions")
      assert.deepStrictEqual(yield* getTeamSettings(admin, team), next)
    }).pipe(Effect.provide(teamUseCases))
  )
})
