import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { getMemberSettings } from "./GetMemberSettings.ts"
import { defaultMemberSettings } from "./TeamSettings.ts"
import { updateMemberSettings } from "./UpdateMemberSettings.ts"

describe("updateMemberSettings", () => {
  it.effect("changes a member's fields given and keeps the others; refuses someone not in the team", () =>
    Effect.gen(function* () {
      const { team, admin, employee, outsider } = yield* seedTeam
      const next = yield* updateMemberSettings(admin, team, employee.nanoid, { hourly_rate_usd_cents: 5000 })
      assert.deepStrictEqual(next, { ...defaultMemberSettings, hourly_rate_usd_cents: 5000 })
      assert.deepStrictEqual(yield* getMemberSettings(admin, team, employee.nanoid), next)
      const missing = yield* Effect.flip(
        updateMemberSettings(admin, team, outsider.nanoid, { payment_notifications: false })
      )
      assert.strictEqual(missing._tag, "MemberNotFound")
    }).pipe(Effect.provide(teamUseCases))
  )
})
