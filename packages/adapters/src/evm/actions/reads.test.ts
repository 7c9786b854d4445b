/**
 * The read actions on the run's anvil: a settlement found again from the chain by its salt, blocks as the node has
 * them, the readiness of the node for the suite, and what an account holds before anything happened to it.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { bytes32, entry, GatewayFixture, newWallet, signedPayments } from "../../../test/GatewayTestKit.ts"
import { executePayments } from "./executeRequests.ts"
import { balanceOf, blockHash, blockNumber, hasRole, intentOf, readiness, settlementOfSalt } from "./reads.ts"

layer(GatewayFixture.layer(), { timeout: 120_000, excludeTestServices: true })("read actions on anvil", (it) => {
  it.effect("the settlement of an executed salt is found again from the chain, as the execution answered it", () =>
    Effect.gen(function* () {
      const { gateway, ownerKey, suite, team } = yield* GatewayFixture
      const signed = yield* signedPayments(ownerKey, team, [
        entry(suite.token, newWallet(), 1_000n),
        entry(suite.token, newWallet(), 2_000n)
      ])
      assert.isUndefined(yield* settlementOfSalt(gateway, team, signed.request.salt))
      // Another request of the same account executes too: only the salt's own is answered.
      const other = yield* signedPayments(ownerKey, team, [entry(suite.token, newWallet(), 3_000n)])
      yield* executePayments(gateway, other)
      const executed = yield* executePayments(gateway, signed)
      const found = yield* settlementOfSalt(gateway, team, signed.request.salt)
      assert.deepStrictEqual(found, executed)
      assert.strictEqual(found?.payments.length, 2)
      // Asked for another account, the salt is not its request.
      assert.isUndefined(yield* settlementOfSalt(gateway, newWallet(), signed.request.salt))
    })
  )

  it.effect("the head's number and each block's hash are the node's; a block the chain does not have has no hash", () =>
    Effect.gen(function* () {
      const { client, gateway } = yield* GatewayFixture
      const head = yield* blockNumber(gateway)
      assert.strictEqual(head, yield* Effect.promise(() => client.getBlockNumber({ cacheTime: 0 })))
      const block = yield* Effect.promise(() => client.getBlock({ blockNumber: head }))
      assert.strictEqual(yield* blockHash(gateway, head), block.hash)
      assert.isUndefined(yield* blockHash(gateway, head + 1_000_000n))
    })
  )

  it.effect("the node is ready when it serves the chain with the suite's code; otherwise it is not, naming why", () =>
    Effect.gen(function* () {
      const { gateway } = yield* GatewayFixture
      yield* readiness(gateway)
      const otherChain = yield* Effect.flip(readiness({ ...gateway, chainId: 1 }))
      assert.strictEqual(otherChain._tag, "ChainUnreachable")
      assert.strictEqual(otherChain.reason, `the node serves chain ${gateway.chainId}, not 1`)
      const noCode = yield* Effect.flip(
        readiness({ ...gateway, addresses: { ...gateway.addresses, escrow: newWallet(), token: newWallet() } })
      )
      assert.strictEqual(noCode.reason, "no contract code on the node for: escrow, token")
    })
  )

  it.effect("an account holds no intent, role or token until one is registered, granted or sent", () =>
    Effect.gen(function* () {
      const { gateway, mint, suite, team } = yield* GatewayFixture
      assert.isUndefined(yield* intentOf(gateway, team, bytes32()))
      assert.isFalse(yield* hasRole(gateway, team, "team_admin", newWallet()))
      const holder = newWallet()
      assert.strictEqual(yield* balanceOf(gateway, holder), 0n)
      yield* mint(holder, 5n)
      assert.strictEqual(yield* balanceOf(gateway, holder), 5n)
      assert.strictEqual(yield* balanceOf(gateway, holder, suite.token), 5n)
    })
  )
})
