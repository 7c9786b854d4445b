/**
 * The execution actions on the run's anvil: signed payments, instant payments and role grants through the forwarder,
 * refused as the chain names why (moving no token), due intents, and concurrent requests sharing transactions.
 */
import { assert, describe, layer } from "@effect/vitest"
import { svcAccountForwarderAbi } from "@svc/contracts"
import {
  type PaymentsForwardRequest,
  paymentRequestOf,
  paymentsRequestDigest,
  paymentsRequestOf
} from "@svc/domain/chain"
import { makeSalt, paymentsTypedData, paymentTypedData } from "@svc/domain/eip712"
import { Randomness } from "@svc/domain/Randomness"
import { Cause, Effect, Option } from "effect"
import { type Address, type Hex, parseEventLogs } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { eventually } from "../../../test/Eventually.ts"
import {
  balances,
  bytes32,
  chainTime,
  entry,
  envelope,
  freshTeam,
  GatewayFixture,
  location,
  newWallet,
  sign,
  signedPayment,
  signedPayments,
  signedRoles,
  startingBalance
} from "../../../test/GatewayTestKit.ts"
import { executeIntent, executePayment, executePayments, executeRoles } from "./executeRequests.ts"
import { hasRole, intentOf, isSaltUsed } from "./reads.ts"

// Real I/O with sleeps and polling: no TestClock (excludeTestServices), so `it.effect` runs on the live clock.
layer(GatewayFixture.layer(), { timeout: 120_000, excludeTestServices: true })("execution actions on anvil", (it) => {
  for (const kind of ["viem", "ethers"] as const) {
    describe(`signed with ${kind}`, () => {
      it.effect("a batch pays every entry and reports each outcome in order", () =>
        Effect.gen(function* () {
          const { gateway, ownerKey, suite, team } = yield* GatewayFixture
          const [alice, bob] = [newWallet(), newWallet()]
          const payments = [entry(suite.token, alice, 1_500_000n), entry(suite.token, bob, 2_000_000n)]
          const [teamBefore] = yield* balances(team)
          const settlement = yield* executePayments(gateway, yield* signedPayments(ownerKey, team, payments, kind))
          assert.deepStrictEqual(
            settlement.payments.map((p) => [p.id, p.outcome, p.recipient, p.amount]),
            [
              [payments[0]!.id, "paid", alice, 1_500_000n],
              [payments[1]!.id, "paid", bob, 2_000_000n]
            ]
          )
          assert.match(settlement.transactionHash, /^0x[0-9a-f]{64}$/)
          assert.deepStrictEqual(yield* balances(team, alice, bob), [teamBefore! - 3_500_000n, 1_500_000n, 2_000_000n])
        })
      )

      it.effect("an instant payment pays its recipient", () =>
        Effect.gen(function* () {
          const { gateway, ownerKey, suite, team } = yield* GatewayFixture
          const carol = newWallet()
          const settlement = yield* executePayment(
            gateway,
            yield* signedPayment(ownerKey, team, entry(suite.token, carol, 250_000n), kind)
          )
          assert.deepStrictEqual(
            settlement.payments.map((p) => p.outcome),
            ["paid"]
          )
          assert.deepStrictEqual(yield* balances(carol), [250_000n])
        })
      )

      it.effect("a manager request grants roles, and a finance admin may then pay", () =>
        Effect.gen(function* () {
          const { gateway, suite } = yield* GatewayFixture
          const { account, ownerKey } = yield* freshTeam()
          const financeKey = generatePrivateKey()
          const finance = privateKeyToAccount(financeKey).address
          const viewer = newWallet()
          const settlement = yield* executeRoles(
            gateway,
            yield* signedRoles(
              ownerKey,
              account,
              [
                { role: "team_finance_admin", account: finance },
                { role: "team_viewer", account: viewer }
              ],
              kind
            )
          )
          assert.deepStrictEqual(settlement.grants, [
            { role: "team_finance_admin", account: finance },
            { role: "team_viewer", account: viewer }
          ])
          assert.isTrue(yield* hasRole(gateway, account, "team_finance_admin", finance))
          assert.isTrue(yield* hasRole(gateway, account, "team_viewer", viewer))
          const dave = newWallet()
          yield* executePayments(
            gateway,
            yield* signedPayments(financeKey, account, [entry(suite.token, dave, 10n)], kind)
          )
          assert.deepStrictEqual(yield* balances(dave), [10n])
        })
      )
    })
  }

  describe("refusals move no token", () => {
    it.effect("a replayed salt is refused with SaltReplayed", () =>
      Effect.gen(function* () {
        const { gateway, ownerKey, suite, team } = yield* GatewayFixture
        const frank = newWallet()
        const signed = yield* signedPayments(ownerKey, team, [entry(suite.token, frank, 1_000n)])
        assert.isFalse(yield* isSaltUsed(gateway, signed.request.salt))
        yield* executePayments(gateway, signed)
        assert.isTrue(yield* isSaltUsed(gateway, signed.request.salt))
        const before = yield* balances(team, frank)
        const error = yield* Effect.flip(executePayments(gateway, signed))
        assert.strictEqual(error._tag, "SaltReplayed")
        assert.deepStrictEqual(yield* balances(team, frank), before)
      })
    )

    it.effect("an expired request is refused with RequestExpired", () =>
      Effect.gen(function* () {
        const { gateway, ownerKey, suite, team } = yield* GatewayFixture
        const grace = newWallet()
        const now = yield* chainTime
        const bundle = paymentsTypedData(yield* location, yield* envelope(ownerKey, team, { expires: now - 1 }), [
          entry(suite.token, grace, 1_000n)
        ])
        const before = yield* balances(team)
        const error = yield* Effect.flip(
          executePayments(gateway, {
            request: paymentsRequestOf(bundle.typed_data),
            signature: yield* sign(bundle, ownerKey, "viem")
          })
        )
        assert.strictEqual(error._tag, "RequestExpired")
        assert.deepStrictEqual(yield* balances(team, grace), [...before, 0n])
      })
    )

    it.effect("a signer the account does not authorise is refused with SignerNotAuthorised", () =>
      Effect.gen(function* () {
        const { gateway, suite, team } = yield* GatewayFixture
        const heidi = newWallet()
        const stranger = generatePrivateKey()
        const before = yield* balances(team)
        const error = yield* Effect.flip(
          executePayments(gateway, yield* signedPayments(stranger, team, [entry(suite.token, heidi, 1_000n)]))
        )
        assert.strictEqual(error._tag, "SignerNotAuthorised")
        assert.deepStrictEqual(yield* balances(team, heidi), [...before, 0n])
      })
    )

    it.effect("a viewer may neither pay nor grant roles", () =>
      Effect.gen(function* () {
        const { gateway, suite } = yield* GatewayFixture
        const { account, ownerKey } = yield* freshTeam()
        const viewerKey = generatePrivateKey()
        const viewer = privateKeyToAccount(viewerKey).address
        yield* executeRoles(gateway, yield* signedRoles(ownerKey, account, [{ role: "team_viewer", account: viewer }]))
        const pay = yield* Effect.flip(
          executePayments(gateway, yield* signedPayments(viewerKey, account, [entry(suite.token, viewer, 1n)]))
        )
        assert.strictEqual(pay._tag, "SignerNotAuthorised")
        const grant = yield* Effect.flip(
          executeRoles(gateway, yield* signedRoles(viewerKey, account, [{ role: "team_admin", account: viewer }]))
        )
        assert.strictEqual(grant._tag, "SignerNotAuthorised")
        assert.isFalse(yield* hasRole(gateway, account, "team_admin", viewer))
        assert.deepStrictEqual(yield* balances(account, viewer), [startingBalance, 0n])
      })
    )

    it.effect("a tampered payment is refused with InvalidSignature", () =>
      Effect.gen(function* () {
        const { gateway, ownerKey, suite, team } = yield* GatewayFixture
        const ivan = newWallet()
        const mallory = newWallet()
        const signed = yield* signedPayments(ownerKey, team, [entry(suite.token, ivan, 1_000n)])
        const [payment] = signed.request.data.payments
        const tampered: PaymentsForwardRequest = {
          ...signed.request,
          data: { payments: [{ ...payment!, recipient: mallory, amount: 900_000_000n }] }
        }
        const before = yield* balances(team)
        const error = yield* Effect.flip(executePayments(gateway, { ...signed, request: tampered }))
        assert.strictEqual(error._tag, "InvalidSignature")
        if (error._tag === "InvalidSignature") {
          assert.strictEqual(error.digest, paymentsRequestDigest(yield* location, tampered))
        }
        assert.deepStrictEqual(yield* balances(team, ivan, mallory), [...before, 0n, 0n])
      })
    )

    it.effect("a batch beyond the balance is refused with InsufficientBalance, atomically", () =>
      Effect.gen(function* () {
        const { gateway, suite } = yield* GatewayFixture
        const { account, ownerKey } = yield* freshTeam(5_000_000n)
        const [judy, ken] = [newWallet(), newWallet()]
        const error = yield* Effect.flip(
          executePayments(
            gateway,
            yield* signedPayments(ownerKey, account, [
              entry(suite.token, judy, 3_000_000n),
              entry(suite.token, ken, 3_000_000n)
            ])
          )
        )
        assert.strictEqual(error._tag, "InsufficientBalance")
        if (error._tag === "InsufficientBalance") {
          assert.deepStrictEqual([error.balance, error.amount], ["2000000", "3000000"])
        }
        assert.deepStrictEqual(yield* balances(account, judy, ken), [5_000_000n, 0n, 0n])
      })
    )
  })

  it.effect("a payment without a recipient or with an unknown payType is refused with InvalidRequest", () =>
    Effect.gen(function* () {
      const { gateway, ownerKey, suite, team } = yield* GatewayFixture
      const before = yield* balances(team)
      const zero = "0x0000000000000000000000000000000000000000"
      const noRecipient = yield* Effect.flip(
        executePayments(gateway, yield* signedPayments(ownerKey, team, [entry(suite.token, zero, 1n)]))
      )
      assert.strictEqual(noRecipient._tag, "InvalidRequest")
      const signed = yield* signedPayments(ownerKey, team, [entry(suite.token, newWallet(), 1n)])
      const [payment] = signed.request.data.payments
      // A pay type outside 1..3 cannot come from the domain's builders: sign it by hand.
      const odd = { ...signed.request, data: { payments: [{ ...payment!, payType: 7n }] } }
      const where = yield* location
      const signature = yield* Effect.promise(() =>
        privateKeyToAccount(ownerKey).sign({ hash: paymentsRequestDigest(where, odd) })
      )
      const unknownType = yield* Effect.flip(executePayments(gateway, { request: odd, signature }))
      assert.strictEqual(unknownType._tag, "InvalidRequest")
      assert.deepStrictEqual(yield* balances(team), before)
    })
  )

  describe("intents", () => {
    it.effect("an intent executes once due, not before, and not twice", () =>
      Effect.gen(function* () {
        const { gateway, ownerKey, suite, team } = yield* GatewayFixture
        const liam = newWallet()
        const payAtTime = (yield* chainTime) + 3
        const intent = entry(suite.token, liam, 42_000n, {
          payType: "2",
          payAtTime: String(payAtTime),
          validMinutes: "5"
        })
        const registered = yield* executePayments(gateway, yield* signedPayments(ownerKey, team, [intent]))
        assert.strictEqual(registered.payments[0]?.outcome, "intent_registered")
        assert.strictEqual(registered.payments[0]?.validUntil, BigInt(payAtTime + 300))
        assert.strictEqual((yield* intentOf(gateway, team, intent.id as Hex))?.state, "registered")

        const early = yield* Effect.flip(executeIntent(gateway, team, intent.id as Hex))
        assert.strictEqual(early._tag, "IntentNotDue")
        assert.deepStrictEqual(yield* balances(liam), [0n])

        // Due once the chain's time passes it: asked again until the chain says so.
        const executed = yield* eventually(
          Effect.catchTag(executeIntent(gateway, team, intent.id as Hex), "IntentNotDue", () =>
            Effect.succeed(undefined)
          ),
          { what: "the intent due on chain", every: "250 millis" }
        )
        assert.deepStrictEqual(
          executed.payments.map((p) => [p.id, p.outcome, p.amount]),
          [[intent.id, "intent_executed", 42_000n]]
        )
        assert.deepStrictEqual(yield* balances(liam), [42_000n])

        const twice = yield* Effect.flip(executeIntent(gateway, team, intent.id as Hex))
        assert.strictEqual(twice._tag, "IntentAlreadyExecuted")
        assert.deepStrictEqual(yield* balances(liam), [42_000n])
        assert.strictEqual((yield* intentOf(gateway, team, intent.id as Hex))?.state, "executed")
      })
    )

    it.effect("an intent past its validity does not execute", () =>
      Effect.gen(function* () {
        const { gateway, ownerKey, suite, team } = yield* GatewayFixture
        const mia = newWallet()
        const intent = entry(suite.token, mia, 42_000n, {
          payType: "2",
          payAtTime: String((yield* chainTime) - 180),
          validMinutes: "1"
        })
        yield* executePayments(gateway, yield* signedPayments(ownerKey, team, [intent]))
        const late = yield* Effect.flip(executeIntent(gateway, team, intent.id as Hex))
        assert.strictEqual(late._tag, "IntentValidityElapsed")
        assert.deepStrictEqual(yield* balances(mia), [0n])
        const unknown = yield* Effect.flip(executeIntent(gateway, team, bytes32()))
        assert.strictEqual(unknown._tag, "IntentNotFound")
      })
    )
  })

  it.effect("20 concurrent executions for one team all land, carried together by one key, on consecutive nonces", () =>
    Effect.gen(function* () {
      const { client, gateway, ownerKey, relayers, suite, team } = yield* GatewayFixture
      const nora = newWallet()
      const requests = yield* Effect.forEach(Array.from({ length: 20 }), () =>
        signedPayments(ownerKey, team, [entry(suite.token, nora, 1_000n)])
      )
      const settlements = yield* Effect.forEach(requests, (request) => executePayments(gateway, request), {
        concurrency: "unbounded"
      })
      // Waiting together, they share transactions (decision 0065).
      const hashes = [...new Set(settlements.map((s) => s.transactionHash))]
      assert.isBelow(hashes.length, 20)
      const transactions = yield* Effect.forEach(hashes, (hash) =>
        Effect.promise(() => client.getTransaction({ hash }))
      )
      // One team's transactions keep to one key (their order is its nonce order); it runs on without a gap.
      const senders = new Set(transactions.map((t) => t.from.toLowerCase()))
      assert.strictEqual(senders.size, 1)
      for (const relayer of relayers.filter((key) => senders.has(key.toLowerCase()))) {
        const nonces = transactions
          .filter((t) => t.from.toLowerCase() === relayer.toLowerCase())
          .map((t) => t.nonce)
          .sort((a, b) => a - b)
        assert.deepStrictEqual(
          nonces,
          nonces.map((_, i) => nonces[0]! + i)
        )
        const pending = yield* Effect.promise(() =>
          client.getTransactionCount({ address: relayer, blockTag: "pending" })
        )
        assert.strictEqual(pending, nonces.at(-1)! + 1)
      }
      assert.isTrue(settlements.every((s) => s.payments.length === 1 && s.payments[0]?.outcome === "paid"))
      assert.deepStrictEqual(yield* balances(nora), [20_000n])
    })
  )

  it.effect(
    "40 single payments from three teams at once share transactions; one that fails there fails alone, naming why",
    () =>
      Effect.gen(function* () {
        const { gateway, client, suite } = yield* GatewayFixture
        const teams = [yield* freshTeam(), yield* freshTeam(), yield* freshTeam()]
        // A team holding 1.5 USDC signs two payments of 1 USDC: each estimates alone, and together one cannot be paid.
        const short = yield* freshTeam(1_500_000n)
        // Salts as the service hands them out: the bits of one random word in turn.
        const salts = Effect.runSync(Effect.replicateEffect(makeSalt, 42).pipe(Effect.provide(Randomness.layer)))
        const signedOne = (ownerKey: Hex, account: Address, amount: bigint) =>
          Effect.gen(function* () {
            const bundle = paymentTypedData(
              yield* location,
              { ...(yield* envelope(ownerKey, account)), salt: salts.pop() as string },
              entry(suite.token, newWallet(), amount)
            )
            return { request: paymentRequestOf(bundle.typed_data), signature: yield* sign(bundle, ownerKey, "viem") }
          })
        const requests = yield* Effect.forEach(Array.from({ length: 40 }), (_, i) => {
          const team = teams[i % 3] as (typeof teams)[number]
          return signedOne(team.ownerKey, team.account, 1_000n + BigInt(i))
        })
        const shortRequests = [
          yield* signedOne(short.ownerKey, short.account, 1_000_000n),
          yield* signedOne(short.ownerKey, short.account, 1_000_000n)
        ]
        const [settled, shortExits] = yield* Effect.all(
          [
            Effect.forEach(requests, (request) => executePayment(gateway, request), { concurrency: "unbounded" }),
            Effect.forEach(shortRequests, (request) => Effect.exit(executePayment(gateway, request)), {
              concurrency: "unbounded"
            })
          ],
          { concurrency: "unbounded" }
        )
        // Each paid once, with its own outcome (the amount tells them apart).
        assert.deepStrictEqual(
          settled.map((settlement) => settlement.payments.map((p) => [p.outcome, p.amount])),
          requests.map((_, i) => [["paid", 1_000n + BigInt(i)]])
        )
        const transactions = new Set(settled.map((settlement) => settlement.transactionHash))
        assert.isBelow(transactions.size, 40)
        const receipts = yield* Effect.forEach([...transactions], (hash) =>
          Effect.promise(() => client.getTransactionReceipt({ hash }))
        )
        const logs = receipts.flatMap((receipt) =>
          parseEventLogs({ abi: svcAccountForwarderAbi, eventName: "RequestExecuted", logs: receipt.logs })
        )
        assert.strictEqual(logs.filter((log) => requests.some((r) => r.request.salt === log.args.salt)).length, 40)
        // Of the short team's two, one was paid, and the other failed alone, with the reason the chain gives.
        const outcomes = shortExits.map((exit) =>
          exit._tag === "Success"
            ? "paid"
            : (Cause.findErrorOption(exit.cause).pipe(Option.getOrUndefined)?._tag ?? "?")
        )
        assert.sameMembers(outcomes, ["paid", "InsufficientBalance"])
        assert.deepStrictEqual(yield* balances(short.account), [500_000n])
      })
  )
})
