import { assert, layer } from "@effect/vitest"
import { EmbeddedChain } from "@svc/adapters/evm"
import { Effect } from "effect"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import * as DepositFollower from "./DepositFollower.ts"
import { DepositLedger } from "./DepositLedger.ts"

const usdc = (n: number) => BigInt(n) * 10n ** 6n
const head = Effect.map(
  ChainGateway.use((chain) => chain.blockNumber),
  Number
)
/** A block mined on the chain: a mint to a wallet no team owns. */
const mineOne = EmbeddedChain.use((chain) => chain.mint(privateKeyToAccount(generatePrivateKey()).address, 1n))

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("DepositFollower.followOnce", (it) => {
  it.effect("records a transfer into a team's account as a deposit, announced once when deep enough", () =>
    Effect.gen(function* () {
      // The seeded team's account receives 1,000 USDC (a mint: from outside the service).
      const { team, company, account } = yield* seedChainTeam
      const minted = yield* head
      const options = { confirmations: 3, startBlock: minted - 2 }
      const first = yield* DepositFollower.followOnce(options)
      assert.isTrue(first.followed)
      // Its passes renew the lease with the token it holds.
      const pass = () => DepositFollower.followOnce(options, first.token)
      assert.strictEqual(first.cursor?.block, minted)
      assert.strictEqual(first.confirmed, 0)
      const listed = () => DepositLedger.use((l) => l.list({ team, limit: 10 }))
      const [deposit, ...others] = yield* listed()
      assert.deepStrictEqual(others, [])
      assert.strictEqual(deposit?.kind, "received")
      assert.strictEqual(deposit?.amount_cents, 100_000)
      assert.strictEqual(deposit?.token_amount, usdc(1000).toString())
      assert.strictEqual(deposit?.to.toLowerCase(), account.toLowerCase())
      assert.strictEqual(deposit?.block_number, minted)
      assert.strictEqual(deposit?.state, "pending")
      const deposited = () =>
        Effect.map(outboxEvents, (events) => events.filter((e) => e.event_type === "deposit.received"))
      assert.deepStrictEqual(yield* deposited(), [])
      // Only the holder of the follower reads: another process (no token) does nothing meanwhile.
      assert.isFalse((yield* DepositFollower.followOnce(options)).followed)
      assert.strictEqual((yield* pass()).token, first.token)
      // Two blocks later the deposit is three deep: confirmed, with deposit.received.
      yield* mineOne
      const notYet = yield* pass()
      assert.strictEqual(notYet.confirmed, 0)
      yield* mineOne
      const deep = yield* pass()
      assert.strictEqual(deep.confirmed, 1)
      assert.strictEqual((yield* listed())[0]?.state, "confirmed")
      const [announced, ...more] = yield* deposited()
      assert.deepStrictEqual(more, [])
      assert.strictEqual(announced?.team_nanoid, team)
      assert.strictEqual(announced?.company_nanoid, company)
      assert.deepInclude(announced?.data as object, {
        nanoid: deposit?.nanoid,
        entity_nanoid: team,
        status: "complete",
        source_amount_cents: 100_000,
        block_number: minted,
        confirmations: 3
      })
      // Announced once: later passes add nothing, and a transfer to a wallet of no team is no deposit.
      yield* mineOne
      assert.strictEqual((yield* pass()).confirmed, 0)
      assert.deepStrictEqual(yield* deposited(), [])
      assert.strictEqual((yield* listed()).length, 1)
      // A second transfer in is a second deposit.
      yield* EmbeddedChain.use((chain) => chain.mint(account, usdc(25)))
      yield* pass()
      assert.deepStrictEqual(
        (yield* listed()).map((d) => [d.amount_cents, d.state]),
        [
          [2_500, "pending"],
          [100_000, "confirmed"]
        ]
      )
    }).pipe(Effect.provide(onChainUseCases))
  )
})
