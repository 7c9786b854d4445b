import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedInvite } from "../../test/InviteKit.ts"
import { mailedTokens, teamUseCases } from "../../test/UseCaseKit.ts"
import { acceptInvite } from "./AcceptInvite.ts"
import { resendInvite } from "./ResendInvite.ts"

describe("resendInvite", () => {
  it.effect("mails a new token: the old link stops working, the new one works", () =>
    Effect.gen(function* () {
      const { admin, outsider, invite, token } = yield* seedInvite
      assert.strictEqual((yield* resendInvite(admin, invite)).state, "pending")
      const renewed = (yield* mailedTokens).get("new.hire@team.example") ?? ""
      assert.notStrictEqual(renewed, token)
      const old = yield* Effect.flip(acceptInvite(outsider, { invite_nanoid: invite, token }))
      assert.strictEqual(old._tag, "InviteNotFound")
      assert.strictEqual((yield* acceptInvite(outsider, { invite_nanoid: invite, token: renewed })).state, "accepted")
    }).pipe(Effect.provide(teamUseCases))
  )
})
