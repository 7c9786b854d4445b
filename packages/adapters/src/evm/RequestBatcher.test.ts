/**
 * The batcher (decision 0065) on an anvil of its own whose mining the test holds: a transaction carrying requests is
 * given the gas they used in its simulation and a margin, not the sum of their caps; when the state changes between
 * the simulation and the block so that they need more than that, the transaction runs out of gas, and no payment is
 * lost or made twice.
 */
import { assert, describe, it } from "@effect/vitest"
import { paymentRequestOf } from "@svc/domain/chain"
import { makeSalt, paymentTypedData } from "@svc/domain/eip712"
import { Randomness } from "@svc/domain/Randomness"
import { Cause, Effect, Exit, Fiber, Option } from "effect"
import { createTestClient, encodeAbiParameters, http, keccak256, pad } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { eventually } from "../../test/Eventually.ts"
import { bytes32, chainId, entry, newAccount, newWallet, sign } from "../../test/GatewayTestKit.ts"
import { startAnvil } from "../embedded/Anvil.ts"
import { executePayment } from "./actions/executeRequests.ts"
import { makeGateway } from "./actions/Gateway.ts"
import { balanceOf, isSaltUsed } from "./actions/reads.ts"
import { makeChainClient } from "./ChainClient.ts"
import { makeRelayer } from "./Relayer.ts"
import { deploySuite, mintTestUsdc } from "./Suite.ts"

/** `TestUSDC.balanceOf`'s storage slot (after `totalSupply`). */
const balancesSlot = 1n

describe("RequestBatcher on anvil", () => {
  it.live(
    "a carrying transaction that runs out of gas on the chain executes none of its requests; each fails naming it, its salt unused, and sent again pays once",
    () =>
      Effect.gen(function* () {
        const anvil = yield* startAnvil()
        const client = makeChainClient({ rpcUrl: anvil.rpcUrl, chainId, pollingInterval: 10 })
        const test = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) })
        const key = privateKeyToAccount(generatePrivateKey())
        yield* Effect.promise(() => test.setBalance({ address: key.address, value: 10n ** 24n }))
        const relayer = yield* makeRelayer(client, key)
        const suite = yield* deploySuite(client, relayer)
        // Requests waiting within 200 ms of each other go together, so that one transaction carries all of them.
        const gateway = yield* makeGateway(client, relayer, suite, { quietMillis: 200 })
        const ownerKey = generatePrivateKey()
        const { account: team } = yield* newAccount(gateway, privateKeyToAccount(ownerKey).address)
        yield* mintTestUsdc(client, relayer, suite.token, team, 1_000_000n)
        // Eight members paid before: each holds the token, so the simulation finds each payment a cheap write.
        const members = Array.from({ length: 8 }, newWallet)
        yield* Effect.forEach(members, (member) => mintTestUsdc(client, relayer, suite.token, member, 1n), {
          discard: true
        })
        const expires = String((yield* Effect.promise(() => client.getBlock())).timestamp + 600n)
        // Salts as the service hands them out: the bits of one random word in turn.
        const salts = yield* Effect.replicateEffect(makeSalt, members.length).pipe(Effect.provide(Randomness.layer))
        const requests = yield* Effect.forEach(members, (member, index) =>
          Effect.gen(function* () {
            const bundle = paymentTypedData(
              { chainId, verifyingContract: suite.forwarder },
              { from: privateKeyToAccount(ownerKey).address, to: team, salt: salts[index] as string, expires },
              entry(suite.token, member, 1_000n + BigInt(index), { id: bytes32() })
            )
            return { request: paymentRequestOf(bundle.typed_data), signature: yield* sign(bundle, ownerKey, "viem") }
          })
        )

        // Mining held: the requests are simulated on the pending state and sent in one transaction.
        yield* Effect.promise(() => test.setAutomine(false))
        const settling = yield* Effect.forEach(requests, (request) =>
          Effect.forkChild(Effect.exit(executePayment(gateway, request)))
        )
        yield* eventually(
          Effect.map(
            Effect.promise(() => test.getTxpoolStatus()),
            (pool) => pool.pending > 0
          ),
          { what: "the batch in the node's pool" }
        )
        // Before its block, every member empties their balance: on the chain each payment writes a new slot (20,000
        // gas, not the simulation's 2,900), eight times 17,100 gas more than the transaction's margin allows.
        yield* Effect.forEach(members, (member) =>
          Effect.promise(() =>
            test.setStorageAt({
              address: suite.token,
              index: keccak256(encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [member, balancesSlot])),
              value: pad("0x0")
            })
          )
        )
        yield* Effect.promise(() => test.mine({ blocks: 1 }))
        yield* Effect.promise(() => test.setAutomine(true))
        const block = yield* Effect.promise(() => client.getBlock({ includeTransactions: true }))
        assert.strictEqual(block.transactions.length, 1)
        const carrier = block.transactions[0]!
        const receipt = yield* Effect.promise(() => client.getTransactionReceipt({ hash: carrier.hash }))
        // It ran out of gas: the whole transaction reverted, and every gas unit it was given was spent.
        assert.strictEqual(receipt.status, "reverted")
        assert.strictEqual(receipt.gasUsed, carrier.gas)

        // Each request was reported not executed (estimated alone again, it would execute: nothing else changed).
        const errors = (yield* Effect.forEach(settling, Fiber.join)).map((exit) =>
          Exit.isFailure(exit) ? Cause.findErrorOption(exit.cause).pipe(Option.getOrUndefined) : undefined
        )
        assert.deepStrictEqual(
          errors.map((error) => error?._tag),
          members.map(() => "SettlementReverted" as const)
        )
        for (const error of errors)
          assert.include(error?._tag === "SettlementReverted" ? error.reason : "", carrier.hash)
        // Nothing was paid and no salt spent: the signer may send them again.
        for (const [index, member] of members.entries()) {
          assert.strictEqual(yield* balanceOf(gateway, member), 0n)
          assert.isFalse(yield* isSaltUsed(gateway, BigInt(salts[index] as string)))
        }
        assert.strictEqual(yield* balanceOf(gateway, team), 1_000_000n)

        // Sent again, on the state as it is now, each pays once; once more, each is refused (its salt is spent).
        const settled = yield* Effect.forEach(requests, (request) => executePayment(gateway, request), {
          concurrency: "unbounded"
        })
        assert.deepStrictEqual(
          settled.map((settlement) => settlement.payments.map((payment) => [payment.outcome, payment.amount])),
          members.map((_, index) => [["paid", 1_000n + BigInt(index)]])
        )
        const again = yield* Effect.forEach(requests, (request) => Effect.flip(executePayment(gateway, request)), {
          concurrency: "unbounded"
        })
        assert.deepStrictEqual(
          again.map((error) => error._tag),
          members.map(() => "SaltReplayed")
        )
        assert.deepStrictEqual(
          yield* Effect.forEach(members, (member) => balanceOf(gateway, member)),
          members.map((_, index) => 1_000n + BigInt(index))
        )
        assert.strictEqual(yield* balanceOf(gateway, team), 1_000_000n - (8n * 1_000n + 28n))
      }).pipe(Effect.scoped),
    120_000
  )
})
