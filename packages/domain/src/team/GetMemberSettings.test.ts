import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { getMemberSettings } from "./GetMemberSettings.ts"
import { defaultMemberSettings } from "./TeamSettings.ts"

describe("getMemberSettings", () => {
  it.effect("answers a member's defaults until changed; someone not in the team is not found", () =>
    Effect.gen(function* () {
      const { team, admin, employee, outsider } = yield* seedTeam
      assert.deepStrictEqual(yield* getMemberSettings(admin, team, employee.nanoid), defaultMemberSettings)
      const missing = yield* Effect.flip(getMemberSettings(admin, team, outsider.nanoid))
      assert.strictEqual(missing._tag, "MemberNotFound")
    }).pipe(Effect.provide(teamUseCases))
  )
})
