/**
 * What every action stands on (`Gateway.ts`), on the run's anvil: the domain requests are signed for, requests sent
 * each in a transaction of its own when batching is off, and a node that cannot be reached before anything is sent.
 */
import { assert, layer } from "@effect/vitest"
import { svcAccountForwarderAbi } from "@svc/contracts"
import {
  paymentRequestDigest,
  paymentRequestOf,
  paymentsRequestDigest,
  paymentsRequestOf,
  rolesRequestDigest,
  rolesRequestOf
} from "@svc/domain/chain"
import { paymentsTypedData, paymentTypedData, rolesTypedData, typedDataDigestUnsafe } from "@svc/domain/eip712"
import { Effect } from "effect"
import { type Hex, keccak256, toHex } from "viem"
import {
  balances,
  bytes32,
  chainId,
  entry,
  envelope,
  freshTeam,
  GatewayFixture,
  location,
  newWallet,
  sign
} from "../../../test/GatewayTestKit.ts"
import { makeChainClient } from "../ChainClient.ts"
import { executeIntent, executePayment } from "./executeRequests.ts"
import { locationOf, makeGateway } from "./Gateway.ts"

// Real I/O with polling: no TestClock (excludeTestServices), so `it.effect` runs on the live clock.
layer(GatewayFixture.layer(), { timeout: 120_000, excludeTestServices: true })("the gateway on anvil", (it) => {
  it.effect("the digest the forwarder computes equals the domain's, for each kind of request", () =>
    Effect.gen(function* () {
      const { client, gateway, ownerKey, suite, team } = yield* GatewayFixture
      // The gateway names the domain the forwarder verifies: this chain, and the suite's forwarder.
      const where = locationOf(gateway)
      assert.deepStrictEqual(where, yield* location)
      const read = (functionName: "digestPayments" | "digestPayment" | "digestRoles", request: unknown) =>
        Effect.promise(
          () =>
            client.readContract({
              address: suite.forwarder,
              abi: svcAccountForwarderAbi,
              functionName,
              args: [request]
            } as never) as Promise<Hex>
        )
      const payments = [
        entry(suite.token, newWallet(), 1n, { payType: "2", payAtTime: "1750000000", validMinutes: "60" }),
        entry(suite.token, suite.escrow, 2n, { payType: "3", data: keccak256(toHex("x@example.com")) })
      ] as const
      const batch = paymentsTypedData(where, yield* envelope(ownerKey, team), payments)
      const batchRequest = paymentsRequestOf(batch.typed_data)
      assert.strictEqual(
        yield* read("digestPayments", { ...batchRequest, payments: batchRequest.data.payments, data: undefined }),
        typedDataDigestUnsafe(batch)
      )
      assert.strictEqual(paymentsRequestDigest(where, batchRequest), typedDataDigestUnsafe(batch))

      const instant = paymentTypedData(where, yield* envelope(ownerKey, team), payments[1])
      const instantRequest = paymentRequestOf(instant.typed_data)
      assert.strictEqual(yield* read("digestPayment", instantRequest), typedDataDigestUnsafe(instant))
      assert.strictEqual(paymentRequestDigest(where, instantRequest), typedDataDigestUnsafe(instant))

      const roles = rolesTypedData(where, yield* envelope(ownerKey, team), [
        { role: "team_admin", account: newWallet() },
        { role: "team_viewer", account: newWallet() }
      ])
      const rolesRequest = rolesRequestOf(roles.typed_data)
      assert.strictEqual(yield* read("digestRoles", rolesRequest), typedDataDigestUnsafe(roles))
      assert.strictEqual(rolesRequestDigest(where, rolesRequest), typedDataDigestUnsafe(roles))
    })
  )

  it.effect("with batching off (maxRequests: 1) each request is sent alone, in a transaction of its own", () =>
    Effect.gen(function* () {
      const { gateway, suite } = yield* GatewayFixture
      const alone = yield* makeGateway(gateway.client, gateway.relayer, gateway.addresses, { maxRequests: 1 })
      assert.isUndefined(alone.batcher)
      assert.isDefined(gateway.batcher)
      assert.strictEqual(alone.chainId, chainId)
      const { account, ownerKey } = yield* freshTeam()
      const recipients = [newWallet(), newWallet(), newWallet(), newWallet(), newWallet()]
      const requests = yield* Effect.forEach(recipients, (recipient) =>
        Effect.gen(function* () {
          const bundle = paymentTypedData(
            yield* location,
            yield* envelope(ownerKey, account),
            entry(suite.token, recipient, 1_000n)
          )
          return { request: paymentRequestOf(bundle.typed_data), signature: yield* sign(bundle, ownerKey, "viem") }
        })
      )
      const settled = yield* Effect.forEach(requests, (request) => executePayment(alone, request), {
        concurrency: "unbounded"
      })
      assert.strictEqual(new Set(settled.map((settlement) => settlement.transactionHash)).size, 5)
      assert.deepStrictEqual(
        settled.map((settlement) => settlement.payments.map((p) => [p.outcome, p.recipient])),
        recipients.map((recipient) => [["paid", recipient]])
      )
      assert.deepStrictEqual(yield* balances(...recipients), [1_000n, 1_000n, 1_000n, 1_000n, 1_000n])
    }).pipe(Effect.scoped)
  )

  it.effect("a node that cannot be reached fails the estimate, which says nothing was sent", () =>
    Effect.gen(function* () {
      const { gateway, team } = yield* GatewayFixture
      const unreachable = {
        ...gateway,
        client: makeChainClient({ rpcUrl: "http://127.0.0.1:1", chainId, rpcRetries: 0, rpcTimeoutMillis: 1_000 })
      }
      const error = yield* Effect.flip(executeIntent(unreachable, team, bytes32() as Hex))
      assert.strictEqual(error._tag, "ChainUnreachable")
    })
  )
})
