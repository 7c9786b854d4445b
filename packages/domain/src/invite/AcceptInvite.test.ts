import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { seedInvite } from "../../test/InviteKit.ts"
import { mailedTokens, outboxEvents, seedTeam, seedTeamAt, teamUseCases } from "../../test/UseCaseKit.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { acceptInvite } from "./AcceptInvite.ts"
import { createInvites } from "./CreateInvites.ts"
import { CreateInvitesRequest } from "./InviteRequests.ts"

/** A second company and team, with users of their own. */
const seedTeamElsewhere = seedTeamAt(1)

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

  it.effect("the prefill's names become the member's profile, unless the member has a name already", () =>
    Effect.gen(function* () {
      const { team, admin, employee, outsider } = yield* seedTeam
      const { nanoids } = yield* createInvites(
        admin,
        Schema.decodeUnknownSync(CreateInvitesRequest)({
          nanoid: team,
          role: "team_contractor",
          invites: [{ email: "ada@team.example", prefill: { first_name: "Ada", last_name: "Lovelace", phone: "1" } }]
        })
      )
      const token = (yield* mailedTokens).get("ada@team.example") ?? ""
      yield* acceptInvite(outsider, { invite_nanoid: nanoids[0]!, token })
      const named = Option.getOrThrow(yield* UserRepository.use((u) => u.findById(outsider.nanoid)))
      assert.deepStrictEqual([named.first_name, named.last_name], ["Ada", "Lovelace"])

      // A member with a name of their own keeps it: the employee, renamed, accepts an invite to a second team.
      const other = yield* seedTeamElsewhere
      const { nanoids: second } = yield* createInvites(
        other.admin,
        Schema.decodeUnknownSync(CreateInvitesRequest)({
          nanoid: other.team,
          role: "team_employee",
          invites: [{ email: "bo@team.example", prefill: { first_name: "Robert" } }]
        })
      )
      yield* UserRepository.use((u) => u.fillNames(employee.nanoid, { first_name: "Bo", last_name: "" }))
      const secondToken = (yield* mailedTokens).get("bo@team.example") ?? ""
      yield* acceptInvite(employee, { invite_nanoid: second[0]!, token: secondToken })
      const kept = Option.getOrThrow(yield* UserRepository.use((u) => u.findById(employee.nanoid)))
      assert.deepStrictEqual([kept.first_name, kept.last_name], ["Bo", ""])
    }).pipe(Effect.provide(teamUseCases))
  )
})
