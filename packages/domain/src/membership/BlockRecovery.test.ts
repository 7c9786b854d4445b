/**
 * A block left between the chain and the database is finished by recovery (decision 0107), on the run's anvil: the
 * process that marked it died before the chain was asked, or after the chain revoked and before the block was
 * recorded. Either way recovery revokes (again: idempotent), records the block once, and cancels nothing twice.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { rolesRequestOf } from "../chain/ForwardRequest.ts"
import { walletAddressOf } from "../Evm.ts"
import { rolesTypedData } from "../eip712/TypedDataBuilder.ts"
import { signTypedDataBundle } from "../eip712/TypedDataSignature.ts"
import { IdGenerator } from "../Ids.ts"
import { newUser, UserRepository } from "../user/index.ts"
import { finishPendingBlocks } from "./BlockMember.ts"
import { MembershipRepository } from "./MembershipRepository.ts"

/** A finance admin of the seeded team, granted on chain by the account's owner. */
const financeAdmin = (team: { readonly team: string; readonly account: `0x${string}`; readonly key: `0x${string}` }) =>
  Effect.gen(function* () {
    const wallet = walletAddressOf(privateKeyToAccount(generatePrivateKey()).address)
    const user = yield* IdGenerator.use((ids) => ids.make("user"))
    yield* UserRepository.use((u) =>
      u.insert(newUser({ nanoid: user, wallet, created_at: "2026-01-01T00:00:00.000Z" }))
    )
    yield* MembershipRepository.use((m) =>
      Effect.flatMap(
        IdGenerator.use((ids) => ids.make("membership")),
        (nanoid) =>
          m.insert({
            nanoid,
            team_nanoid: team.team as never,
            user_nanoid: user,
            role: "team_finance_admin",
            email: "",
            created_at: "2026-01-01T00:00:00.000Z"
          })
      )
    )
    const chain = yield* ChainGateway
    const { forwarder } = yield* chain.addresses
    const owner = privateKeyToAccount(team.key).address
    const bundle = rolesTypedData(
      { chainId: chain.chainId, verifyingContract: forwarder },
      {
        from: owner,
        to: team.account,
        salt: String(BigInt(`0x${generatePrivateKey().slice(2, 60)}`)),
        expires: "9999999999"
      },
      [{ role: "team_finance_admin", account: wallet }]
    )
    yield* chain.executeRoles({
      request: rolesRequestOf(bundle.typed_data),
      signature: yield* signTypedDataBundle(bundle, team.key)
    })
    assert.isTrue(yield* chain.hasRole(team.account, "team_finance_admin", wallet))
    return { user, wallet }
  }).pipe(Effect.orDie)

// Real chain calls poll their receipts: the live clock (excludeTestServices); the marks are old enough for it.
layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("block recovery on anvil", (it) => {
  it.effect("a block marked before the chain, or revoked on chain before the database, is finished once", () =>
    Effect.gen(function* () {
      const seeded = yield* seedChainTeam
      const chain = yield* ChainGateway
      const [before, after] = [yield* financeAdmin(seeded), yield* financeAdmin(seeded)]
      const mark = {
        state: "blocking" as const,
        since: "2026-01-01T00:00:00.000Z",
        reason: "left",
        by: seeded.admin.nanoid
      }
      // Died before asking the chain: only the mark. Died after the chain revoked: the mark, and the chain's answer.
      for (const member of [before, after]) {
        yield* MembershipRepository.use((m) => m.moveBlock(seeded.team, member.user, "active", mark))
      }
      yield* Effect.orDie(chain.revokeAuthority(seeded.account, [after.wallet]))
      assert.strictEqual(yield* finishPendingBlocks(), 2)
      assert.strictEqual(yield* finishPendingBlocks(), 0)
      for (const member of [before, after]) {
        assert.isFalse(yield* Effect.orDie(chain.hasRole(seeded.account, "team_finance_admin", member.wallet)))
        const found = yield* MembershipRepository.use((m) => m.find(seeded.team, member.user))
        assert.strictEqual(found._tag === "Some" ? found.value.block?.state : undefined, "blocked")
      }
      const events = (yield* outboxEvents).filter((e) => e.event_type === "team.member_blocked")
      assert.deepStrictEqual(events.map((e) => e.data.user_nanoid).sort(), [before.user, after.user].sort())
    }).pipe(Effect.provide(onChainUseCases))
  )
})
