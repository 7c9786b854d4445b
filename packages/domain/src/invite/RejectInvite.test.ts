import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedInvite } from "../../test/InviteKit.ts"
import { outboxEvents, teamUseCases } from "../../test/UseCaseKit.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { InviteRepository } from "./InviteRepository.ts"
import { rejectInvite } from "./RejectInvite.ts"

describe("rejectInvite", () => {
  it.effect("the invitee with the token declines: no membership, an invite.rejected event", () =>
    Effect.gen(function* () {
      const { team, outsider, invite, token } = yield* seedInvite
      assert.strictEqual((yield* rejectInvite(outsider, { invite_nanoid: invite, token })).state, "rejected")
      assert.strictEqual((yield* InviteRepository.use((i) => i.findById(invite))).state, "rejected")
      assert.strictEqual((yield* MembershipRepository.use((m) => m.find(team, outsider.nanoid)))._tag, "None")
      assert.include(
        (yield* outboxEvents).map((e) => e.event_type),
        "invite.rejected"
      )
    }).pipe(Effect.provide(teamUseCases))
  )
})
