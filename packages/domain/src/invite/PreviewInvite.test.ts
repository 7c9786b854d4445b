import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedInvite } from "../../test/InviteKit.ts"
import { teamUseCases } from "../../test/UseCaseKit.ts"
import { previewInvite } from "./PreviewInvite.ts"

describe("previewInvite", () => {
  it.effect("shows the invite its token opens, without signing in; a wrong token shows nothing", () =>
    Effect.gen(function* () {
      const { invite, token } = yield* seedInvite
      const shown = yield* previewInvite(invite, token)
      assert.deepStrictEqual([shown.state, shown.role, shown.team_name], ["pending", "team_employee", "Team"])
      assert.strictEqual((yield* Effect.flip(previewInvite(invite, "f".repeat(64))))._tag, "InviteNotFound")
    }).pipe(Effect.provide(teamUseCases))
  )
})
