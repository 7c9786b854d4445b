import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { createManagerInvites } from "./CreateManagerInvites.ts"
import { InviteRepository } from "./InviteRepository.ts"
import { CreateManagerInvitesRequest } from "./InviteRequests.ts"

const body = (team: string, wallet: string, role = "team_finance_admin") =>
  Schema.decodeUnknownSync(CreateManagerInvitesRequest)({
    nanoid: team,
    invites: [{ email: "finance@team.example", wallet, role }]
  })

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("createManagerInvites", (it) => {
  it.effect("pending manager invites and the grant to sign, by the admin's wallet on the team's account", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, account } = yield* seedChainTeam
      const wallet = "0x00000000000000000000000000000000000000f1"
      const bundle = yield* createManagerInvites(signingAdmin, body(team, wallet))
      assert.strictEqual(bundle.typed_data.from.toLowerCase(), signingAdmin.wallet)
      assert.strictEqual(bundle.typed_data.to.toLowerCase(), account.toLowerCase())
      assert.deepStrictEqual(bundle.typed_data.data, [{ role: "team_finance_admin", account: wallet }])
      const [invite] = yield* Effect.forEach(bundle.invites, (id) => InviteRepository.use((i) => i.findById(id)))
      assert.deepStrictEqual([invite?.kind, invite?.state, invite?.account], ["manager", "pending", wallet])
      const issued = yield* IssuedRequestStore.use((s) => s.find(bundle.typed_data.salt))
      assert.strictEqual(issued.kind, "roles")
    }).pipe(Effect.provide(onChainUseCases))
  )

  it.effect("refuses an employee, a member's change of role, and a team without an account", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, employee } = yield* seedChainTeam
      const wallet = "0x00000000000000000000000000000000000000f2"
      assert.strictEqual(
        (yield* Effect.flip(createManagerInvites(employee, body(team, wallet))))._tag,
        "InsufficientPermissions"
      )
      const change = yield* Effect.flip(createManagerInvites(signingAdmin, body(team, employee.wallet)))
      assert.strictEqual(change._tag, "AlreadyTeamMember")
      yield* TeamRepository.use((t) => t.update(team, { svc_account: "" }))
      const missing = yield* Effect.flip(createManagerInvites(signingAdmin, body(team, wallet)))
      assert.strictEqual(missing._tag, "TeamAccountMissing")
      assert.deepStrictEqual(yield* InviteRepository.use((i) => i.listByTeams([team], [])), [])
    }).pipe(Effect.provide(onChainUseCases))
  )
})
