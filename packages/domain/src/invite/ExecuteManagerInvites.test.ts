import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { signTypedDataBundle } from "../eip712/TypedDataSignature.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { createManagerInvites } from "./CreateManagerInvites.ts"
import { executeManagerInvites } from "./ExecuteManagerInvites.ts"
import { InviteRepository } from "./InviteRepository.ts"
import { CreateManagerInvitesRequest, ExecuteManagerInvitesRequest } from "./InviteRequests.ts"

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("executeManagerInvites", (it) => {
  it.effect("grants the signed role on chain once: the wallet is a member with it, a replay answers the same", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, key, account } = yield* seedChainTeam
      const wallet = "0x00000000000000000000000000000000000000f3"
      const bundle = yield* createManagerInvites(
        signingAdmin,
        Schema.decodeUnknownSync(CreateManagerInvitesRequest)({
          nanoid: team,
          invites: [{ email: "viewer@team.example", wallet, role: "team_viewer" }]
        })
      )
      const signature = yield* signTypedDataBundle(bundle, key)
      const execute = Schema.decodeUnknownSync(ExecuteManagerInvitesRequest)({
        invites: bundle.invites,
        signer: signingAdmin.wallet,
        typed_data: bundle.typed_data,
        signature
      })
      const done = yield* executeManagerInvites(signingAdmin, execute)
      assert.strictEqual(done._tag, "Executed")
      assert.match(done.result.transaction, /^0x[0-9a-f]{64}$/)
      assert.isTrue(yield* ChainGateway.use((c) => c.hasRole(account, "team_viewer", wallet)).pipe(Effect.orDie))
      const user = yield* UserRepository.use((u) => u.findByWallet(wallet))
      const member =
        user._tag === "Some" ? yield* MembershipRepository.use((m) => m.find(team, user.value.nanoid)) : undefined
      assert.strictEqual(member?._tag === "Some" ? member.value.role : undefined, "team_viewer")
      assert.deepStrictEqual(
        (yield* Effect.forEach(bundle.invites, (id) => InviteRepository.use((i) => i.findById(id)))).map(
          (i) => i.state
        ),
        ["accepted"]
      )
      assert.includeMembers(
        (yield* outboxEvents).map((e) => e.event_type),
        ["invite.accepted", "team.member_added"]
      )
      assert.deepStrictEqual(yield* executeManagerInvites(signingAdmin, execute), done)
      const other = yield* Effect.flip(executeManagerInvites(signingAdmin, { ...execute, invites: [] }))
      assert.strictEqual(other._tag, "ExecutionBodyMismatch")
    }).pipe(Effect.provide(onChainUseCases))
  )
})
