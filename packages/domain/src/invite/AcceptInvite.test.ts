import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { seedInvite } from "../../test/InviteKit.ts"
import { outboxEvents, teamUseCases } from "../../test/UseCaseKit.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { acceptInvite } from "./AcceptInvite.ts"

describe("acceptInvite", () => {
  it.effect("the invitee with the token becomes a member, with the invite's events; the token works once", () =>
    Effect.gen(function* () {
      const { team, outsider, invite, token } = yield* seedInvite
      const accepted = yield* acceptInvite(outsider, { invite_nanoid: invite, token })
      assert.strictEqual(accepted.state, "accepted")
      const membership = yield* MembershipRepository.use((m) => m.find(team, outsider.nanoid))
      assert.strictEqual(membership._tag === "Some" ? membership.value.role : undefined, "team_employee")
      const kinds = (yield* outboxEvents).map((e) => e.event_type)
      assert.includeMembers(kinds, ["invite.accepted", "team.member_added"])
      const again = yield* Effect.flip(acceptInvite(outsider, { invite_nanoid: invite, token }))
      assert.strictEqual(again._tag, "InviteAnswered")
    }).pipe(Effect.provide(teamUseCases))
  )

  it.effect("a wrong token opens nothing, and changes nothing", () =>
    Effect.gen(function* () {
      const { team, outsider, invite } = yield* seedInvite
      const wrong = yield* Effect.flip(acceptInvite(outsider, { invite_nanoid: invite, token: "0".repeat(64) }))
      assert.strictEqual(wrong._tag, "InviteNotFound")
      assert.strictEqual((yield* MembershipRepository.use((m) => m.find(team, outsider.nanoid)))._tag, "None")
    }).pipe(Effect.provide(teamUseCases))
  )
})
