import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedInvite } from "../../test/InviteKit.ts"
import { teamUseCases } from "../../test/UseCaseKit.ts"
import { acceptInvite } from "./AcceptInvite.ts"
import { revokeInvite } from "./RevokeInvite.ts"

describe("revokeInvite", () => {
  it.effect("the team's admin withdraws the invite, whose link then opens nothing; others find no invite", () =>
    Effect.gen(function* () {
      const { admin, employee, outsider, invite, token } = yield* seedInvite
      assert.strictEqual((yield* Effect.flip(revokeInvite(employee, invite)))._tag, "InviteNotFound")
      assert.strictEqual((yield* revokeInvite(admin, invite)).state, "revoked")
      const closed = yield* Effect.flip(acceptInvite(outsider, { invite_nanoid: invite, token }))
      assert.strictEqual(closed._tag, "InviteRevoked")
      assert.strictEqual((yield* Effect.flip(revokeInvite(admin, invite)))._tag, "InviteRevoked")
    }).pipe(Effect.provide(teamUseCases))
  )
})
