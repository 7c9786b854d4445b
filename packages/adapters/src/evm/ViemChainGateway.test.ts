import { randomBytes } from "node:crypto"
import { assert, describe, layer } from "@effect/vitest"
import { svcAccountAbi, svcAccountForwarderAbi, svcEscrowAbi } from "@svc/contracts"
import {
  ChainGateway,
  type PaymentsForwardRequest,
  paymentRequestDigest,
  paymentRequestOf,
  paymentsRequestDigest,
  paymentsRequestOf,
  rolesRequestDigest,
  rolesRequestOf
} from "@svc/domain/chain"
import {
  makeSalt,
  type PaymentEntry,
  paymentsTypedData,
  paymentTypedData,
  type RoleGrant,
  rolesTypedData,
  signableOf,
  type TypedDataBundle,
  typedDataDigestUnsafe
} from "@svc/domain/eip712"
import { Randomness } from "@svc/domain/Randomness"
import { Cause, Context, Effect, Fiber, Layer, Option, Stream } from "effect"
import { Wallet } from "ethers"
import {
  type Address,
  type BaseError,
  ContractFunctionRevertedError,
  type Hex,
  keccak256,
  type PublicClient,
  parseEventLogs,
  toHex
} from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { makeChainClient } from "./ChainClient.ts"
import { EmbeddedChain } from "./EmbeddedChain.ts"
import type { DeployedSuite } from "./Suite.ts"

/** A fresh suite on the shared anvil (its own relayer key), and a funded team account owned by `ownerKey`. */
class Fixture extends Context.Service<
  Fixture,
  {
    readonly client: PublicClient
    readonly chain: EmbeddedChain["Service"]
    readonly suite: DeployedSuite
    readonly ownerKey: Hex
    readonly team: Address
  }
>()("test/evm/Fixture") {}

const rpcUrl = inject("rpcUrl")
const chainId = 42161
const startingBalance = 1_000_000_000n // 1,000 USDC

const TestLayer = Layer.effect(
  Fixture,
  Effect.gen(function* () {
    const chain = yield* EmbeddedChain
    const gateway = yield* ChainGateway
    const ownerKey = generatePrivateKey()
    const { account: team } = yield* gateway.createAccount(privateKeyToAccount(ownerKey).address, bytes32())
    yield* chain.mint(team, startingBalance)
    const client = makeChainClient({ rpcUrl, chainId, pollingInterval: 10 })
    return { client, chain, suite: chain.suite, ownerKey, team }
  }).pipe(Effect.orDie)
).pipe(Layer.provideMerge(EmbeddedChain.layer({ rpcUrl, chainId })))

function bytes32(): Hex {
  return toHex(randomBytes(32))
}

const salt = () => BigInt(bytes32()).toString(10)
const newWallet = () => privateKeyToAccount(generatePrivateKey()).address

/** The chain's time, from the latest block. */
const chainTime = Effect.gen(function* () {
  const { client } = yield* Fixture
  const block = yield* Effect.promise(() => client.getBlock())
  return Number(block.timestamp)
})

const envelope = (from: Hex, to: Address, options: { readonly expires?: number } = {}) =>
  Effect.gen(function* () {
    const now = yield* chainTime
    return {
      from: privateKeyToAccount(from).address,
      to,
      salt: salt(),
      expires: String(options.expires ?? now + 600)
    }
  })

const entry = (token: Address, recipient: Address, amount: bigint, overrides: Partial<PaymentEntry> = {}) =>
  ({
    id: bytes32(),
    groupID: bytes32(),
    payAtTime: "0",
    validMinutes: "0",
    payType: "1",
    token,
    recipient,
    amount: amount.toString(),
    data: "0x",
    ...overrides
  }) satisfies PaymentEntry

type SignerKind = "viem" | "ethers"

/** Signs as a wallet would: viem's local account, or an ethers `Wallet` on the bundle as sent in JSON. */
const sign = (bundle: TypedDataBundle, key: Hex, kind: SignerKind) =>
  Effect.promise((): Promise<Hex> => {
    if (kind === "viem") return privateKeyToAccount(key).signTypedData(signableOf(bundle))
    const json = JSON.parse(JSON.stringify(bundle))
    return new Wallet(key).signTypedData(json.domain, json.types, json.typed_data) as Promise<Hex>
  })

const location = Fixture.useSync(({ suite }) => ({ chainId, verifyingContract: suite.forwarder }))

const signedPayments = (key: Hex, to: Address, payments: ReadonlyArray<PaymentEntry>, kind: SignerKind = "viem") =>
  Effect.gen(function* () {
    const bundle = paymentsTypedData(
      yield* location,
      yield* envelope(key, to),
      payments as [PaymentEntry, ...Array<PaymentEntry>]
    )
    return { request: paymentsRequestOf(bundle.typed_data), signature: yield* sign(bundle, key, kind) }
  })

const signedRoles = (key: Hex, to: Address, grants: ReadonlyArray<RoleGrant>, kind: SignerKind = "viem") =>
  Effect.gen(function* () {
    const bundle = rolesTypedData(yield* location, yield* envelope(key, to), grants as [RoleGrant, ...Array<RoleGrant>])
    return { request: rolesRequestOf(bundle.typed_data), signature: yield* sign(bundle, key, kind) }
  })

const balances = (...holders: ReadonlyArray<Address>) =>
  Effect.gen(function* () {
    const gateway = yield* ChainGateway
    return yield* Effect.forEach(holders, (holder) => gateway.balanceOf(holder))
  })

/** A team account of its own, funded, for tests that spend or change roles. */
const freshTeam = (amount: bigint = startingBalance) =>
  Effect.gen(function* () {
    const { chain } = yield* Fixture
    const gateway = yield* ChainGateway
    const ownerKey = generatePrivateKey()
    const { account } = yield* gateway.createAccount(privateKeyToAccount(ownerKey).address, bytes32())
    if (amount > 0n) yield* chain.mint(account, amount)
    return { ownerKey, account }
  })

// Real I/O with sleeps and polling: no TestClock (excludeTestServices), so `it.effect` runs on the live clock.
layer(TestLayer, { timeout: 120_000, excludeTestServices: true })("ChainGateway on anvil (viem adapter)", (it) => {
  for (const kind of ["viem", "ethers"] as const) {
    describe(`signed with ${kind}`, () => {
      it.effect("a batch pays every entry and reports each outcome in order", () =>
        Effect.gen(function* () {
          const { ownerKey, suite, team } = yield* Fixture
          const gateway = yield* ChainGateway
          const [alice, bob] = [newWallet(), newWallet()]
          const payments = [entry(suite.token, alice, 1_500_000n), entry(suite.token, bob, 2_000_000n)]
          const [teamBefore] = yield* balances(team)
          const settlement = yield* gateway.executePayments(yield* signedPayments(ownerKey, team, payments, kind))
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
          const { ownerKey, suite, team } = yield* Fixture
          const gateway = yield* ChainGateway
          const carol = newWallet()
          const bundle = paymentTypedData(
            yield* location,
            yield* envelope(ownerKey, team),
            entry(suite.token, carol, 250_000n)
          )
          const settlement = yield* gateway.executePayment({
            request: paymentRequestOf(bundle.typed_data),
            signature: yield* sign(bundle, ownerKey, kind)
          })
          assert.deepStrictEqual(
            settlement.payments.map((p) => p.outcome),
            ["paid"]
          )
          assert.deepStrictEqual(yield* balances(carol), [250_000n])
        })
      )

      it.effect("a manager request grants roles, and a finance admin may then pay", () =>
        Effect.gen(function* () {
          const { suite } = yield* Fixture
          const gateway = yield* ChainGateway
          const { account, ownerKey } = yield* freshTeam()
          const financeKey = generatePrivateKey()
          const finance = privateKeyToAccount(financeKey).address
          const viewer = newWallet()
          const settlement = yield* gateway.executeRoles(
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
          assert.isTrue(yield* gateway.hasRole(account, "team_finance_admin", finance))
          assert.isTrue(yield* gateway.hasRole(account, "team_viewer", viewer))
          const dave = newWallet()
          yield* gateway.executePayments(
            yield* signedPayments(financeKey, account, [entry(suite.token, dave, 10n)], kind)
          )
          assert.deepStrictEqual(yield* balances(dave), [10n])
        })
      )
    })
  }

  it.effect("an escrow payment to an e-mail is held under its claim id, then released to the claimer's account", () =>
    Effect.gen(function* () {
      const { client, ownerKey, suite, team } = yield* Fixture
      const gateway = yield* ChainGateway
      const claimId = keccak256(toHex("erin@example.com"))
      const bundle = paymentTypedData(
        yield* location,
        yield* envelope(ownerKey, team),
        entry(suite.token, suite.escrow, 700_000n, { payType: "3", data: claimId })
      )
      const settlement = yield* gateway.executePayment({
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
      const release = yield* gateway.releaseEscrow(claimId, erin)
      assert.strictEqual(release.amount, 700_000n)
      assert.deepStrictEqual(yield* balances(erin, suite.escrow), [700_000n, 0n])
      const again = yield* Effect.flip(gateway.releaseEscrow(claimId, erin))
      assert.strictEqual(again._tag, "EscrowClaimEmpty")
    })
  )

  describe("refusals move no token", () => {
    it.effect("a replayed salt is refused with SaltReplayed", () =>
      Effect.gen(function* () {
        const { ownerKey, suite, team } = yield* Fixture
        const gateway = yield* ChainGateway
        const frank = newWallet()
        const signed = yield* signedPayments(ownerKey, team, [entry(suite.token, frank, 1_000n)])
        assert.isFalse(yield* gateway.isSaltUsed(signed.request.salt))
        yield* gateway.executePayments(signed)
        assert.isTrue(yield* gateway.isSaltUsed(signed.request.salt))
        const before = yield* balances(team, frank)
        const error = yield* Effect.flip(gateway.executePayments(signed))
        assert.strictEqual(error._tag, "SaltReplayed")
        assert.deepStrictEqual(yield* balances(team, frank), before)
      })
    )

    it.effect("the settlement of an executed salt is found again from the chain, as the execution answered it", () =>
      Effect.gen(function* () {
        const { ownerKey, suite, team } = yield* Fixture
        const gateway = yield* ChainGateway
        const signed = yield* signedPayments(ownerKey, team, [
          entry(suite.token, newWallet(), 1_000n),
          entry(suite.token, newWallet(), 2_000n)
        ])
        assert.isUndefined(yield* gateway.settlementOfSalt(team, signed.request.salt))
        // Another request of the same account executes too: only the salt's own is answered.
        const other = yield* signedPayments(ownerKey, team, [entry(suite.token, newWallet(), 3_000n)])
        yield* gateway.executePayments(other)
        const executed = yield* gateway.executePayments(signed)
        const found = yield* gateway.settlementOfSalt(team, signed.request.salt)
        assert.deepStrictEqual(found, executed)
        assert.strictEqual(found?.payments.length, 2)
        // Asked for another account, the salt is not its request.
        assert.isUndefined(yield* gateway.settlementOfSalt(newWallet(), signed.request.salt))
      })
    )

    it.effect("an expired request is refused with RequestExpired", () =>
      Effect.gen(function* () {
        const { ownerKey, suite, team } = yield* Fixture
        const gateway = yield* ChainGateway
        const grace = newWallet()
        const now = yield* chainTime
        const bundle = paymentsTypedData(yield* location, yield* envelope(ownerKey, team, { expires: now - 1 }), [
          entry(suite.token, grace, 1_000n)
        ])
        const before = yield* balances(team)
        const error = yield* Effect.flip(
          gateway.executePayments({
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
        const { suite, team } = yield* Fixture
        const gateway = yield* ChainGateway
        const heidi = newWallet()
        const stranger = generatePrivateKey()
        const before = yield* balances(team)
        const error = yield* Effect.flip(
          gateway.executePayments(yield* signedPayments(stranger, team, [entry(suite.token, heidi, 1_000n)]))
        )
        assert.strictEqual(error._tag, "SignerNotAuthorised")
        assert.deepStrictEqual(yield* balances(team, heidi), [...before, 0n])
      })
    )

    it.effect("a viewer may neither pay nor grant roles", () =>
      Effect.gen(function* () {
        const { suite } = yield* Fixture
        const gateway = yield* ChainGateway
        const { account, ownerKey } = yield* freshTeam()
        const viewerKey = generatePrivateKey()
        const viewer = privateKeyToAccount(viewerKey).address
        yield* gateway.executeRoles(yield* signedRoles(ownerKey, account, [{ role: "team_viewer", account: viewer }]))
        const pay = yield* Effect.flip(
          gateway.executePayments(yield* signedPayments(viewerKey, account, [entry(suite.token, viewer, 1n)]))
        )
        assert.strictEqual(pay._tag, "SignerNotAuthorised")
        const grant = yield* Effect.flip(
          gateway.executeRoles(yield* signedRoles(viewerKey, account, [{ role: "team_admin", account: viewer }]))
        )
        assert.strictEqual(grant._tag, "SignerNotAuthorised")
        assert.isFalse(yield* gateway.hasRole(account, "team_admin", viewer))
        assert.deepStrictEqual(yield* balances(account, viewer), [startingBalance, 0n])
      })
    )

    it.effect("a tampered payment is refused with InvalidSignature", () =>
      Effect.gen(function* () {
        const { ownerKey, suite, team } = yield* Fixture
        const gateway = yield* ChainGateway
        const ivan = newWallet()
        const mallory = newWallet()
        const signed = yield* signedPayments(ownerKey, team, [entry(suite.token, ivan, 1_000n)])
        const [payment] = signed.request.data.payments
        const tampered: PaymentsForwardRequest = {
          ...signed.request,
          data: { payments: [{ ...payment!, recipient: mallory, amount: 900_000_000n }] }
        }
        const before = yield* balances(team)
        const error = yield* Effect.flip(gateway.executePayments({ ...signed, request: tampered }))
        assert.strictEqual(error._tag, "InvalidSignature")
        if (error._tag === "InvalidSignature") {
          assert.strictEqual(error.digest, paymentsRequestDigest(yield* location, tampered))
        }
        assert.deepStrictEqual(yield* balances(team, ivan, mallory), [...before, 0n, 0n])
      })
    )

    it.effect("a batch beyond the balance is refused with InsufficientBalance, atomically", () =>
      Effect.gen(function* () {
        const { suite } = yield* Fixture
        const gateway = yield* ChainGateway
        const { account, ownerKey } = yield* freshTeam(5_000_000n)
        const [judy, ken] = [newWallet(), newWallet()]
        const error = yield* Effect.flip(
          gateway.executePayments(
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
      const { ownerKey, suite, team } = yield* Fixture
      const gateway = yield* ChainGateway
      const before = yield* balances(team)
      const zero = "0x0000000000000000000000000000000000000000"
      const noRecipient = yield* Effect.flip(
        gateway.executePayments(yield* signedPayments(ownerKey, team, [entry(suite.token, zero, 1n)]))
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
      const unknownType = yield* Effect.flip(gateway.executePayments({ request: odd, signature }))
      assert.strictEqual(unknownType._tag, "InvalidRequest")
      assert.deepStrictEqual(yield* balances(team), before)
    })
  )

  it.effect("creating an account twice returns the same account without a second transaction", () =>
    Effect.gen(function* () {
      const gateway = yield* ChainGateway
      const { client, suite } = yield* Fixture
      const owner = newWallet()
      const salt = bytes32()
      const predicted = yield* gateway.accountAddress(owner, salt)
      const forwarderSays = yield* Effect.promise(() =>
        client.readContract({
          address: suite.forwarder,
          abi: svcAccountForwarderAbi,
          functionName: "accountAddress",
          args: [owner, salt]
        })
      )
      assert.strictEqual(predicted, forwarderSays)
      const first = yield* gateway.createAccount(owner, salt)
      const second = yield* gateway.createAccount(owner, salt)
      assert.strictEqual(first.account, predicted)
      assert.notStrictEqual(yield* Effect.promise(() => client.getCode({ address: predicted })), undefined)
      assert.isDefined(first.transactionHash)
      assert.deepStrictEqual(second, { account: first.account, owner })
      const unknown = yield* Effect.flip(
        gateway.executePayments(yield* signedPayments(generatePrivateKey(), newWallet(), [entry(owner, owner, 1n)]))
      )
      assert.strictEqual(unknown._tag, "UnknownAccount")
    })
  )

  describe("intents", () => {
    it.effect("an intent executes once due, not before, and not twice", () =>
      Effect.gen(function* () {
        const { ownerKey, suite, team } = yield* Fixture
        const gateway = yield* ChainGateway
        const liam = newWallet()
        const payAtTime = (yield* chainTime) + 3
        const intent = entry(suite.token, liam, 42_000n, {
          payType: "2",
          payAtTime: String(payAtTime),
          validMinutes: "5"
        })
        const registered = yield* gateway.executePayments(yield* signedPayments(ownerKey, team, [intent]))
        assert.strictEqual(registered.payments[0]?.outcome, "intent_registered")
        assert.strictEqual(registered.payments[0]?.validUntil, BigInt(payAtTime + 300))
        assert.strictEqual((yield* gateway.intent(team, intent.id as Hex))?.state, "registered")

        const early = yield* Effect.flip(gateway.executeIntent(team, intent.id as Hex))
        assert.strictEqual(early._tag, "IntentNotDue")
        assert.deepStrictEqual(yield* balances(liam), [0n])

        yield* Effect.sleep(`${payAtTime * 1000 - Date.now() + 1500} millis`)
        const executed = yield* gateway.executeIntent(team, intent.id as Hex)
        assert.deepStrictEqual(
          executed.payments.map((p) => [p.id, p.outcome, p.amount]),
          [[intent.id, "intent_executed", 42_000n]]
        )
        assert.deepStrictEqual(yield* balances(liam), [42_000n])

        const twice = yield* Effect.flip(gateway.executeIntent(team, intent.id as Hex))
        assert.strictEqual(twice._tag, "IntentAlreadyExecuted")
        assert.deepStrictEqual(yield* balances(liam), [42_000n])
        assert.strictEqual((yield* gateway.intent(team, intent.id as Hex))?.state, "executed")
      })
    )

    it.effect("an intent past its validity does not execute", () =>
      Effect.gen(function* () {
        const { ownerKey, suite, team } = yield* Fixture
        const gateway = yield* ChainGateway
        const mia = newWallet()
        const intent = entry(suite.token, mia, 42_000n, {
          payType: "2",
          payAtTime: String((yield* chainTime) - 180),
          validMinutes: "1"
        })
        yield* gateway.executePayments(yield* signedPayments(ownerKey, team, [intent]))
        const late = yield* Effect.flip(gateway.executeIntent(team, intent.id as Hex))
        assert.strictEqual(late._tag, "IntentValidityElapsed")
        assert.deepStrictEqual(yield* balances(mia), [0n])
        const unknown = yield* Effect.flip(gateway.executeIntent(team, bytes32()))
        assert.strictEqual(unknown._tag, "IntentNotFound")
      })
    )
  })

  it.effect("20 concurrent executions for one team all land, carried together by one key, on consecutive nonces", () =>
    Effect.gen(function* () {
      const { chain, client, ownerKey, suite, team } = yield* Fixture
      const gateway = yield* ChainGateway
      const nora = newWallet()
      const requests = yield* Effect.forEach(Array.from({ length: 20 }), () =>
        signedPayments(ownerKey, team, [entry(suite.token, nora, 1_000n)])
      )
      const settlements = yield* Effect.forEach(requests, (request) => gateway.executePayments(request), {
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
      for (const relayer of chain.relayers.filter((key) => senders.has(key.toLowerCase()))) {
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
        const { client, suite } = yield* Fixture
        const gateway = yield* ChainGateway
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
            Effect.forEach(requests, (request) => gateway.executePayment(request), { concurrency: "unbounded" }),
            Effect.forEach(shortRequests, (request) => Effect.exit(gateway.executePayment(request)), {
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
        console.error(
          "GAS",
          transactions.size,
          receipts.map((r) => [r.gasUsed, r.logs.length]),
          receipts.reduce((s, r) => s + r.gasUsed, 0n) / 40n
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

  it.effect("the digest the forwarder computes equals the domain's, for each kind of request", () =>
    Effect.gen(function* () {
      const { client, ownerKey, suite, team } = yield* Fixture
      const where = yield* location
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

  it.effect("deposits into an account are watched as they are mined", () =>
    Effect.gen(function* () {
      const { chain, client } = yield* Fixture
      const gateway = yield* ChainGateway
      const { account } = yield* freshTeam(0n)
      const fromBlock = yield* Effect.promise(() => client.getBlockNumber())
      const watching = yield* gateway
        .deposits([account], { fromBlock })
        .pipe(Stream.take(2), Stream.runCollect, Effect.forkChild)
      yield* chain.mint(account, 123n)
      yield* chain.mint(account, 456n)
      const deposits = yield* Fiber.join(watching).pipe(Effect.timeout("20 seconds"))
      assert.deepStrictEqual(
        deposits.map((d) => [d.account, d.amount, d.from]),
        [
          [account, 123n, "0x0000000000000000000000000000000000000000"],
          [account, 456n, "0x0000000000000000000000000000000000000000"]
        ]
      )
    })
  )

  describe("revocation (decision 0020)", () => {
    it.effect("revoking ends granted roles and the ownership: the wallets can no longer pay or grant", () =>
      Effect.gen(function* () {
        const { suite } = yield* Fixture
        const gateway = yield* ChainGateway
        const { account, ownerKey } = yield* freshTeam()
        const owner = privateKeyToAccount(ownerKey).address
        const adminKey = generatePrivateKey()
        const admin = privateKeyToAccount(adminKey).address
        const viewer = newWallet()
        yield* gateway.executeRoles(
          yield* signedRoles(ownerKey, account, [
            { role: "team_admin", account: admin },
            { role: "team_finance_admin", account: admin },
            { role: "team_viewer", account: viewer }
          ])
        )
        assert.strictEqual(yield* gateway.ownerOf(account), owner)
        const revocation = yield* gateway.revokeAuthority(account, [admin, owner])
        assert.isUndefined(yield* gateway.ownerOf(account))
        assert.isDefined(revocation.transactionHash)
        assert.deepStrictEqual(revocation.revoked, [
          { role: "team_admin", account: admin },
          { role: "team_finance_admin", account: admin },
          { role: "owner", account: owner }
        ])
        assert.isFalse(yield* gateway.hasRole(account, "team_admin", admin))
        assert.isFalse(yield* gateway.hasRole(account, "team_finance_admin", admin))
        assert.isTrue(yield* gateway.hasRole(account, "team_viewer", viewer))
        const before = yield* balances(account)
        for (const key of [adminKey, ownerKey]) {
          const pay = yield* Effect.flip(
            gateway.executePayments(yield* signedPayments(key, account, [entry(suite.token, newWallet(), 1n)]))
          )
          assert.strictEqual(pay._tag, "SignerNotAuthorised")
          const grant = yield* Effect.flip(
            gateway.executeRoles(yield* signedRoles(key, account, [{ role: "team_admin", account: newWallet() }]))
          )
          assert.strictEqual(grant._tag, "SignerNotAuthorised")
        }
        assert.deepStrictEqual(yield* balances(account), before)
      })
    )

    it.effect("a wallet with nothing to revoke, or an account not created yet, costs no transaction", () =>
      Effect.gen(function* () {
        const gateway = yield* ChainGateway
        const { account } = yield* freshTeam(0n)
        assert.deepStrictEqual(yield* gateway.revokeAuthority(account, [newWallet()]), { revoked: [] })
        const unborn = yield* gateway.accountAddress(newWallet(), bytes32())
        assert.deepStrictEqual(yield* gateway.revokeAuthority(unborn, [newWallet()]), { revoked: [] })
        assert.isUndefined(yield* gateway.ownerOf(unborn))
      })
    )

    it.effect("only an operator of the forwarder may revoke, and only through the forwarder", () =>
      Effect.gen(function* () {
        const { client, suite } = yield* Fixture
        const { account, ownerKey } = yield* freshTeam(0n)
        const owner = privateKeyToAccount(ownerKey).address
        const refusal = (call: Promise<unknown>) =>
          Effect.promise(() =>
            call.then(
              () => "accepted",
              (error: BaseError) => {
                const reverted = error.walk((cause) => cause instanceof ContractFunctionRevertedError)
                return reverted instanceof ContractFunctionRevertedError ? reverted.data?.errorName : "unnamed"
              }
            )
          )
        const viaForwarder = yield* refusal(
          client.simulateContract({
            address: suite.forwarder,
            abi: svcAccountForwarderAbi,
            functionName: "revoke",
            args: [account, [owner]],
            account: owner
          })
        )
        assert.strictEqual(viaForwarder, "NotOperator")
        const direct = yield* refusal(
          client.simulateContract({
            address: account,
            abi: svcAccountAbi,
            functionName: "revoke",
            args: [[owner]],
            account: owner
          })
        )
        assert.strictEqual(direct, "NotForwarder")
      })
    )
  })
})
