/**
 * The assembly of the viem gateway on the run's anvil (each action is tested in `actions/`): the production layer,
 * built from settings, answers each port method with its action; its batch settings reach the gateway; its relayer
 * journals into the context's `TransactionJournal`; a node it cannot reach refuses it. (A forwarder of another contracts
 * version is refused in `ContractsVersion.test.ts`.)
 */
import { assert, layer } from "@effect/vitest"
import { svcAccountForwarderAbi } from "@svc/contracts"
import { ChainGateway, type SuiteAddresses, TransactionJournal } from "@svc/domain/chain"
import { Context, Effect, Fiber, Layer, Redacted, Stream } from "effect"
import { type Address, type Hex, keccak256, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import {
  bytes32,
  chainId,
  chainTime,
  entry,
  freshTeam,
  GatewayFixture,
  newWallet,
  rpcUrl,
  signedPayment,
  signedPayments,
  signedRoles
} from "../../test/GatewayTestKit.ts"
import { SqliteDatabase } from "../sqlite/SqliteDatabase.ts"
import * as SqliteTransactionJournal from "../sqlite/SqliteTransactionJournal.ts"
import type { ChainSettings } from "./ChainSettings.ts"
import * as ViemChainGateway from "./ViemChainGateway.ts"

/** The keys of the layers under test, one a test: operators of the fixture's suite, funded before use. */
const layerKeys = [generatePrivateKey(), generatePrivateKey(), generatePrivateKey(), generatePrivateKey()] as const
const addressOf = (key: Hex): Address => privateKeyToAccount(key).address

/** Settings for the production layer on the fixture's suite, sending from `key`. */
const settingsOf = (key: Hex, batch?: ChainSettings["batch"]) =>
  Effect.gen(function* () {
    const { setEtherBalance, suite } = yield* GatewayFixture
    yield* setEtherBalance(addressOf(key), 10n ** 21n)
    const addresses: SuiteAddresses = { token: suite.token, escrow: suite.escrow, forwarder: suite.forwarder }
    return {
      rpcUrl: Redacted.make(rpcUrl),
      chainId,
      relayerKeys: [Redacted.make(key)],
      addresses,
      pollingInterval: 10,
      ...(batch === undefined ? {} : { batch })
    } satisfies ChainSettings
  })

/** The production layer's gateway for `settings`, for the test's scope. */
const gatewayOf = (settings: ChainSettings) =>
  Effect.map(Layer.build(ViemChainGateway.layer(settings)), (context) => Context.get(context, ChainGateway))

// Real I/O with polling: no TestClock (excludeTestServices), so `it.effect` runs on the live clock.
layer(GatewayFixture.layer({ operators: layerKeys.map(addressOf) }), { timeout: 120_000, excludeTestServices: true })(
  "ViemChainGateway's assembly on anvil",
  (it) => {
    it.effect("each port method of the layer's gateway reaches its action", () =>
      Effect.gen(function* () {
        const { client, mint, suite } = yield* GatewayFixture
        const settings = yield* settingsOf(layerKeys[0])
        const gateway = yield* gatewayOf(settings)
        assert.strictEqual(gateway.chainId, chainId)
        assert.deepStrictEqual(yield* gateway.addresses, settings.addresses)

        // Accounts: the address the forwarder computes, created once, owned.
        const ownerKey = generatePrivateKey()
        const owner = addressOf(ownerKey)
        const accountSalt = bytes32()
        const account = yield* gateway.accountAddress(owner, accountSalt)
        const forwarderSays = yield* Effect.promise(() =>
          client.readContract({
            address: suite.forwarder,
            abi: svcAccountForwarderAbi,
            functionName: "accountAddress",
            args: [owner, accountSalt]
          })
        )
        assert.strictEqual(account, forwarderSays)
        const created = yield* gateway.createAccount(owner, accountSalt)
        assert.strictEqual(created.account, account)
        assert.isDefined(created.transactionHash)
        assert.strictEqual(yield* gateway.ownerOf(account), owner)

        // Deposits, watched from the head.
        const fromBlock = yield* gateway.blockNumber
        const watching = yield* gateway
          .deposits([account], { fromBlock })
          .pipe(Stream.take(1), Stream.runCollect, Effect.forkChild)
        yield* mint(account, 10_000_000n)
        const watched = yield* Fiber.join(watching).pipe(Effect.timeout("20 seconds"))
        assert.deepStrictEqual(
          watched.map((deposit) => [deposit.account, deposit.amount]),
          [[account, 10_000_000n]]
        )

        // Payments: a batch found again by its salt, an instant one, the transfers of both, the balances.
        const [alice, bob] = [newWallet(), newWallet()]
        const signed = yield* signedPayments(ownerKey, account, [entry(suite.token, alice, 1_000n)])
        assert.isFalse(yield* gateway.isSaltUsed(signed.request.salt))
        const paid = yield* gateway.executePayments(signed)
        assert.deepStrictEqual(
          paid.payments.map((p) => [p.outcome, p.recipient, p.amount]),
          [["paid", alice, 1_000n]]
        )
        assert.isTrue(yield* gateway.isSaltUsed(signed.request.salt))
        assert.deepStrictEqual(yield* gateway.settlementOfSalt(account, signed.request.salt), paid)
        const instant = yield* gateway.executePayment(
          yield* signedPayment(ownerKey, account, entry(suite.token, bob, 2_000n))
        )
        assert.deepStrictEqual(
          instant.payments.map((p) => [p.outcome, p.recipient, p.amount]),
          [["paid", bob, 2_000n]]
        )
        const transfers = yield* gateway.tokenTransfers(paid.blockNumber, instant.blockNumber)
        assert.deepStrictEqual(
          transfers.filter((transfer) => transfer.from === account).map((transfer) => [transfer.to, transfer.amount]),
          [
            [alice, 1_000n],
            [bob, 2_000n]
          ]
        )
        assert.strictEqual(yield* gateway.balanceOf(alice), 1_000n)
        assert.strictEqual(yield* gateway.balanceOf(bob, suite.token), 2_000n)

        // Roles.
        const viewer = newWallet()
        const roles = yield* gateway.executeRoles(
          yield* signedRoles(ownerKey, account, [{ role: "team_viewer", account: viewer }])
        )
        assert.deepStrictEqual(roles.grants, [{ role: "team_viewer", account: viewer }])
        assert.isTrue(yield* gateway.hasRole(account, "team_viewer", viewer))

        // An intent, due already: registered, then executed.
        const carol = newWallet()
        const intent = entry(suite.token, carol, 3_000n, {
          payType: "2",
          payAtTime: String((yield* chainTime) - 10),
          validMinutes: "5"
        })
        const registered = yield* gateway.executePayments(yield* signedPayments(ownerKey, account, [intent]))
        assert.strictEqual(registered.payments[0]?.outcome, "intent_registered")
        assert.strictEqual((yield* gateway.intent(account, intent.id as Hex))?.state, "registered")
        const executed = yield* gateway.executeIntent(account, intent.id as Hex)
        assert.deepStrictEqual(
          executed.payments.map((p) => [p.outcome, p.amount]),
          [["intent_executed", 3_000n]]
        )

        // An escrowed payment, released by the layer's key (an operator of the escrow).
        const claimId = keccak256(toHex(`${bytes32()}@example.com`))
        yield* gateway.executePayment(
          yield* signedPayment(
            ownerKey,
            account,
            entry(suite.token, suite.escrow, 4_000n, { payType: "3", data: claimId })
          )
        )
        const erin = newWallet()
        const released = yield* gateway.releaseEscrow(claimId, erin)
        assert.deepStrictEqual([released.claimId, released.to, released.amount], [claimId, erin, 4_000n])
        assert.strictEqual(yield* gateway.balanceOf(erin), 4_000n)

        // Revocation of the owner.
        const revocation = yield* gateway.revokeAuthority(account, [owner])
        assert.deepStrictEqual(revocation.revoked, [{ role: "owner", account: owner }])
        assert.isUndefined(yield* gateway.ownerOf(account))

        // Blocks, readiness, the relayer's health.
        const head = yield* gateway.blockNumber
        const block = yield* Effect.promise(() => client.getBlock({ blockNumber: head }))
        assert.strictEqual(yield* gateway.blockHash(head), block.hash)
        assert.isUndefined(yield* gateway.blockHash(head + 1_000_000n))
        yield* gateway.readiness
        const health = yield* gateway.relayerHealth
        assert.deepStrictEqual(
          health.map((key) => key.address),
          [addressOf(layerKeys[0])]
        )
      }).pipe(Effect.scoped)
    )

    it.effect(
      "the batch settings reach the gateway: one request a transaction at BATCH_MAX_REQUESTS=1, else shared",
      () =>
        Effect.gen(function* () {
          const { suite } = yield* GatewayFixture
          const transactionsOf = (gateway: ChainGateway["Service"]) =>
            Effect.gen(function* () {
              const { account, ownerKey } = yield* freshTeam()
              const requests = yield* Effect.forEach(Array.from({ length: 8 }), () =>
                signedPayment(ownerKey, account, entry(suite.token, newWallet(), 1_000n))
              )
              const settled = yield* Effect.forEach(requests, (request) => gateway.executePayment(request), {
                concurrency: "unbounded"
              })
              assert.isTrue(settled.every((settlement) => settlement.payments[0]?.outcome === "paid"))
              return new Set(settled.map((settlement) => settlement.transactionHash)).size
            })
          const alone = yield* gatewayOf(yield* settingsOf(layerKeys[1], { maxRequests: 1 }))
          assert.strictEqual(yield* transactionsOf(alone), 8)
          const shared = yield* gatewayOf(yield* settingsOf(layerKeys[2]))
          assert.isBelow(yield* transactionsOf(shared), 8)
        }).pipe(Effect.scoped)
    )

    it.effect("the layer's relayer journals into the context's TransactionJournal", () =>
      Effect.gen(function* () {
        const settings = yield* settingsOf(layerKeys[3])
        const context = yield* Layer.build(
          ViemChainGateway.layer(settings).pipe(
            Layer.provideMerge(
              SqliteTransactionJournal.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: ":memory:" })))
            )
          )
        )
        const gateway = Context.get(context, ChainGateway)
        const journal = Context.get(context, TransactionJournal)
        const key = addressOf(layerKeys[3])
        assert.isUndefined(yield* journal.nextNonce(chainId, key))
        const created = yield* gateway.createAccount(newWallet(), bytes32())
        const versions = yield* journal.versions(chainId, key, 0)
        assert.deepStrictEqual(
          versions.map((version) => version.hash),
          [created.transactionHash]
        )
        assert.strictEqual(yield* journal.nextNonce(chainId, key), 1)
      }).pipe(Effect.scoped)
    )

    it.effect("a node that cannot be reached refuses the layer as unavailable", () =>
      Effect.gen(function* () {
        const settings = yield* settingsOf(generatePrivateKey())
        const refused = yield* Effect.flip(
          gatewayOf({
            ...settings,
            rpcUrl: Redacted.make("http://127.0.0.1:1"),
            rpcRetries: 0,
            rpcTimeoutMillis: 1_000
          })
        )
        assert.strictEqual(refused._tag, "ChainUnreachable")
      }).pipe(Effect.scoped)
    )
  }
)
