import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Schema } from "effect"
import { outboxEvents, seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import type { WalletAddress } from "../Evm.ts"
import { IdGenerator, type InviteId } from "../Ids.ts"
import { adminInviteOf } from "../invite/AdminInvite.ts"
import { InviteRepository } from "../invite/InviteRepository.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { createTeam } from "./CreateTeam.ts"
import { CreateTeamBody, type Team } from "./Team.ts"
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

  it.effect(
    "a team whose admin invite cannot be stored is not created: no team, admin or event; the invite in its way stays",
    () =>
      Effect.gen(function* () {
        const { company, team, admin } = yield* seedTeam
        // The kit numbers ids in turn: an invite already holds the id the new team's admin invite will get.
        const taken = yield* IdGenerator.use((ids) => ids.make("invite"))
        const next = `${taken.slice(0, -1)}${Number(taken.at(-1)) + 1}` as InviteId
        const other = "0x00000000000000000000000000000000000000ee" as WalletAddress
        const existing = adminInviteOf({
          nanoid: next,
          team: { nanoid: team, company_nanoid: company } as Team,
          wallet: other,
          email: "",
          inviter: admin.nanoid,
          tokenHash: "0".repeat(64),
          now: "2026-01-01T00:00:00.000Z",
          expiresAt: "2026-01-08T00:00:00.000Z"
        })
        yield* InviteRepository.use((i) => i.create([existing]))
        const before = yield* outboxEvents
        const failed = yield* Effect.exit(
          createTeam(admin, body({ name: "Ops", entity_nanoid: company, admin_wallet: other }))
        )
        assert.isTrue(Exit.isFailure(failed))
        assert.deepStrictEqual(
          (yield* TeamRepository.use((t) => t.listByCompany(company))).map((t) => t.nanoid),
          [team]
        )
        assert.deepStrictEqual(
          (yield* MembershipRepository.use((m) => m.listByUser(admin.nanoid))).map((m) => m.team_nanoid),
          [team]
        )
        assert.strictEqual((yield* outboxEvents).length, before.length)
        const invites = yield* InviteRepository.use((i) => i.listByTeams([team], []))
        assert.deepStrictEqual(
          invites.map((i) => i.nanoid),
          [next]
        )
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
