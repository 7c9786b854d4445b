import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { outboxEvents, seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { InviteRepository } from "../invite/InviteRepository.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { createTeam } from "./CreateTeam.ts"
import { CreateTeamBody } from "./Team.ts"
import { TeamRepository } from "./TeamRepository.ts"

const body = Schema.decodeUnknownSync(CreateTeamBody)

describe("createTeam", () => {
  it.effect("a company's admin creates a team and is its admin; another admin wallet gets a pending invite", () =>
    Effect.gen(function* () {
      const { company, admin } = yield* seedTeam
      const other = "0x00000000000000000000000000000000000000ee"
      const created = yield* createTeam(admin, body({ name: "Ops", entity_nanoid: company, admin_wallet: other }))
      assert.strictEqual(created.admin_wallet, admin.wallet)
      assert.strictEqual(created.member_count, 1)
      const membership = yield* MembershipRepository.use((m) => m.find(created.team_nanoid, admin.nanoid))
      assert.strictEqual(membership._tag === "Some" ? membership.value.role : undefined, "team_admin")
      const invites = yield* InviteRepository.use((i) => i.listByTeams([created.team_nanoid], []))
      assert.deepStrictEqual(
        invites.map((i) => [i.nanoid, i.kind, i.account]),
        [[created.admin_invite_nanoid, "admin", other]]
      )
      const events = yield* outboxEvents
      assert.isTrue(events.some((e) => e.event_type === "team.member_added" && e.team_nanoid === created.team_nanoid))
    }).pipe(Effect.provide(teamUseCases))
  )

  it.effect("refuses an employee and an outsider of the company, creating nothing", () =>
    Effect.gen(function* () {
      const { company, employee, outsider } = yield* seedTeam
      for (const caller of [employee, outsider]) {
        const refused = yield* Effect.flip(
          createTeam(caller, body({ name: "Mine", entity_nanoid: company, admin_wallet: caller.wallet }))
        )
        assert.strictEqual(refused._tag, "InsufficientPermissions")
      }
      assert.strictEqual((yield* TeamRepository.use((t) => t.listByCompany(company))).length, 1)
    }).pipe(Effect.provide(teamUseCases))
  )
})
