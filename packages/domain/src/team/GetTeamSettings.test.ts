import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { getTeamSettings } from "./GetTeamSettings.ts"
import { defaultTeamSettings } from "./TeamSettings.ts"

describe("getTeamSettings", () => {
  it.effect("answers the defaults until changed; refuses an outsider", () =>
    Effect.gen(function* () {
      const { team, admin, outsider } = yield* seedTeam
      assert.deepStrictEqual(yield* getTeamSettings(admin, team), defaultTeamSettings)
      assert.strictEqual((yield* Effect.flip(getTeamSettings(outsider, team)))._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(teamUseCases))
  )
})
