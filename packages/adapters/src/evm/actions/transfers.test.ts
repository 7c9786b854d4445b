/**
 * The transfer actions on the run's anvil: deposits watched as they are mined, and an escrowed payment released to its
 * claimer.
 */
import { assert, layer } from "@effect/vitest"
import { svcEscrowAbi } from "@svc/contracts"
import { paymentRequestOf } from "@svc/domain/chain"
import { paymentTypedData } from "@svc/domain/eip712"
import { Effect, Fiber, Stream } from "effect"
import { keccak256, toHex } from "viem"
import {
  balances,
  entry,
  envelope,
  freshTeam,
  GatewayFixture,
  location,
  newWallet,
  sign
} from "../../../test/GatewayTestKit.ts"
import { executePayment } from "./executeRequests.ts"
import { deposits, releaseEscrow } from "./transfers.ts"

// Real I/O with polling: no TestClock (excludeTestServices), so `it.effect` runs on the live clock.
layer(GatewayFixture.layer(), { timeout: 120_000, excludeTestServices: true })("transfer actions on anvil", (it) => {
  it.effect("an escrow payment to an e-mail is held under its claim id, then released to the claimer's account", () =>
    Effect.gen(function* () {
      const { gateway, client, ownerKey, suite, team } = yield* GatewayFixture
      const claimId = keccak256(toHex("erin@example.com"))
      const bundle = paymentTypedData(
        yield* location,
        yield* envelope(ownerKey, team),
        entry(suite.token, suite.escrow, 700_000n, { payType: "3", data: claimId })
      )
      const settlement = yield* executePayment(gateway, {
        request: paymentRequestOf(bundle.typed_data),
        signature: yield* sign(bundle, ownerKey, "viem")
      })
      assert.strictEqual(settlement.payments[0]?.outcome, "escrowed")
      assert.strictEqual(settlement.payments[0]?.claimId, claimId)
      const held = yield* Effect.promise(() =>
        client.readContract({
          address: suite.escrow,
          abi: svcEscrowAbi,
          functionName: "claimable",
          args: [claimId, suite.token]
        })
      )
      assert.strictEqual(held, 700_000n)
      const erin = newWallet()
      const release = yield* releaseEscrow(gateway, claimId, erin)
      assert.strictEqual(release.amount, 700_000n)
      assert.deepStrictEqual(yield* balances(erin, suite.escrow), [700_000n, 0n])
      const again = yield* Effect.flip(releaseEscrow(gateway, claimId, erin))
      assert.strictEqual(again._tag, "EscrowClaimEmpty")
    })
  )

  it.effect("deposits into an account are watched as they are mined", () =>
    Effect.gen(function* () {
      const { client, gateway, mint } = yield* GatewayFixture
      const { account } = yield* freshTeam(0n)
      const fromBlock = yield* Effect.promise(() => client.getBlockNumber())
      const watching = yield* deposits(gateway, [account], { fromBlock }).pipe(
        Stream.take(2),
        Stream.runCollect,
        Effect.forkChild
      )
      yield* mint(account, 123n)
      yield* mint(account, 456n)
      const watched = yield* Fiber.join(watching).pipe(Effect.timeout("20 seconds"))
      assert.deepStrictEqual(
        watched.map((d) => [d.account, d.amount, d.from]),
        [
          [account, 123n, "0x0000000000000000000000000000000000000000"],
          [account, 456n, "0x0000000000000000000000000000000000000000"]
        ]
      )
    })
  )
})
