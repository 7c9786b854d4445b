/**
 * Packed immediate payments (contracts version 4, decision 0082) on the run's anvil: the forwarder's
 * `executePaymentPacked` verifies a packed payment exactly as `executePayment` (or `executePayments`, for a batch of
 * one) verifies the request it packs (same signature, same refusals, same logs, one salt space), `executePacked`
 * executes several each on its own, and the batcher carries single payments waiting together that way.
 */
import { assert, describe, layer } from "@effect/vitest"
import { svcAccountAbi, svcAccountForwarderAbi } from "@svc/contracts"
import { type PaymentForwardRequest, paymentRequestDigest, paymentsRequestDigest, type Signed } from "@svc/domain/chain"
import { Effect } from "effect"
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  concat,
  createWalletClient,
  decodeFunctionData,
  getAddress,
  type Hex,
  http,
  numberToHex,
  parseEventLogs,
  size,
  slice
} from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import {
  balances,
  chainTime,
  entry,
  freshTeam,
  GatewayFixture,
  location,
  newWallet,
  rpcUrl,
  signedPayment,
  signedPayments
} from "../../test/GatewayTestKit.ts"
import { executePayment, executePayments } from "./actions/executeRequests.ts"
import { isSaltUsed } from "./actions/reads.ts"
import { packPayment, packPayments } from "./PackedPayment.ts"

/** secp256k1's order, to turn a signature into its high-s twin. */
const curveOrder = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

/** The packed bytes of a signed instant payment (the test expects it to pack). */
const packed = (signed: Signed<PaymentForwardRequest>): Hex => {
  const bytes = packPayment(signed)
  if (bytes === undefined) throw new Error("the payment does not pack")
  return bytes
}

/** A funded sender of its own, for calls made outside the gateway. */
const sender = Effect.gen(function* () {
  const { setEtherBalance } = yield* GatewayFixture
  const account = privateKeyToAccount(generatePrivateKey())
  yield* setEtherBalance(account.address, 10n ** 21n)
  return createWalletClient({ account, transport: http(rpcUrl) })
})

/** Sends `executePaymentPacked(bytes)` from a sender of its own; answers the receipt. */
const sendPacked = (bytes: Hex) =>
  Effect.gen(function* () {
    const { client, suite } = yield* GatewayFixture
    const wallet = yield* sender
    const hash = yield* Effect.promise(() =>
      wallet.writeContract({
        address: suite.forwarder,
        abi: svcAccountForwarderAbi,
        functionName: "executePaymentPacked",
        args: [bytes],
        chain: null
      })
    )
    return yield* Effect.promise(() => client.waitForTransactionReceipt({ hash }))
  })

/** What the forwarder's `functionName` does with `bytes` on the latest state: "executes", or its error's name. */
const refusal = (bytes: Hex, functionName: "executePaymentPacked" | "executePacked" = "executePaymentPacked") =>
  Effect.gen(function* () {
    const { client, suite } = yield* GatewayFixture
    return yield* Effect.promise(() =>
      client
        .simulateContract({ address: suite.forwarder, abi: svcAccountForwarderAbi, functionName, args: [bytes] })
        .then(
          () => "executes",
          (error: unknown) => {
            const reverted =
              error instanceof BaseError ? error.walk((cause) => cause instanceof ContractFunctionRevertedError) : null
            return reverted instanceof ContractFunctionRevertedError ? (reverted.data?.errorName ?? "") : String(error)
          }
        )
    )
  })

layer(GatewayFixture.layer(), { timeout: 120_000, excludeTestServices: true })("packed payments on anvil", (it) => {
  it.effect("a packed payment executes as the request it packs: once, with the same digest and logs", () =>
    Effect.gen(function* () {
      const { gateway, suite } = yield* GatewayFixture
      const { account, ownerKey } = yield* freshTeam(1_000_000n)
      const alice = newWallet()
      const signed = yield* signedPayment(ownerKey, account, entry(suite.token, alice, 250_000n))
      const bytes = packed(signed)
      assert.strictEqual(size(bytes), 263)
      const receipt = yield* sendPacked(bytes)
      assert.strictEqual(receipt.status, "success")
      const [executed] = parseEventLogs({
        abi: svcAccountForwarderAbi,
        eventName: "RequestExecuted",
        logs: receipt.logs
      })
      assert.deepStrictEqual(executed?.args, {
        digest: paymentRequestDigest(yield* location, signed.request),
        account,
        signer: signed.request.from,
        salt: signed.request.salt,
        kind: 2
      })
      const [paid] = parseEventLogs({ abi: svcAccountAbi, eventName: "PaymentExecuted", logs: receipt.logs })
      assert.deepStrictEqual(paid?.args, {
        id: signed.request.data.id,
        groupID: signed.request.data.groupID,
        recipient: alice,
        token: getAddress(suite.token),
        amount: 250_000n
      })
      assert.deepStrictEqual(yield* balances(account, alice), [750_000n, 250_000n])
      assert.isTrue(yield* isSaltUsed(gateway, signed.request.salt))
      // One salt space: neither form of the request executes again.
      assert.strictEqual(yield* refusal(bytes), "SaltReplayed")
      assert.strictEqual((yield* Effect.flip(executePayment(gateway, signed)))._tag, "SaltReplayed")
      assert.deepStrictEqual(yield* balances(account, alice), [750_000n, 250_000n])
    })
  )

  it.effect("a batch of one payment, as a single payment paid now is signed, packs as the batch it is", () =>
    Effect.gen(function* () {
      const { gateway, suite } = yield* GatewayFixture
      const { account, ownerKey } = yield* freshTeam(1_000_000n)
      const carl = newWallet()
      const signed = yield* signedPayments(ownerKey, account, [entry(suite.token, carl, 40_000n)])
      const bytes = packPayments(signed)
      assert.strictEqual(bytes?.slice(0, 4), "0x01")
      // Two payments, or one paid later, do not pack.
      assert.isUndefined(
        packPayments(
          yield* signedPayments(ownerKey, account, [entry(suite.token, carl, 1n), entry(suite.token, carl, 1n)])
        )
      )
      assert.isUndefined(
        packPayments(
          yield* signedPayments(ownerKey, account, [entry(suite.token, carl, 1n, { payType: "2", payAtTime: "1" })])
        )
      )
      const receipt = yield* sendPacked(bytes ?? "0x")
      const [executed] = parseEventLogs({
        abi: svcAccountForwarderAbi,
        eventName: "RequestExecuted",
        logs: receipt.logs
      })
      assert.strictEqual(executed?.args.digest, paymentsRequestDigest(yield* location, signed.request))
      assert.strictEqual(executed?.args.kind, 1)
      assert.deepStrictEqual(yield* balances(account, carl), [960_000n, 40_000n])
      assert.strictEqual((yield* Effect.flip(executePayments(gateway, signed)))._tag, "SaltReplayed")
    })
  )

  it.effect("refusals name what `executePayment` names, and move nothing", () =>
    Effect.gen(function* () {
      const { suite } = yield* GatewayFixture
      const { account, ownerKey } = yield* freshTeam(1_000_000n)
      const bob = newWallet()
      const good = yield* signedPayment(ownerKey, account, entry(suite.token, bob, 1_000n))
      const bytes = packed(good)
      // The amount (bytes 182 to 198) changed after signing.
      const tampered = concat([slice(bytes, 0, 182), numberToHex(2_000n, { size: 16 }), slice(bytes, 198)])
      assert.strictEqual(yield* refusal(tampered), "InvalidSignature")
      // The same signature with s in the upper half of the order (and v turned): valid for ecrecover, refused here.
      const s = BigInt(slice(bytes, 230, 262))
      const v = Number(BigInt(slice(bytes, 262)))
      const highS = concat([
        slice(bytes, 0, 230),
        numberToHex(curveOrder - s, { size: 32 }),
        numberToHex(v === 27 ? 28 : 27, { size: 1 })
      ])
      assert.strictEqual(yield* refusal(highS), "InvalidSignature")
      const now = yield* chainTime
      const expired = yield* signedPayment(ownerKey, account, entry(suite.token, bob, 1_000n), "viem", {
        expires: now - 60
      })
      assert.strictEqual(yield* refusal(packed(expired)), "RequestExpired")
      const strangerKey = generatePrivateKey()
      const stranger = yield* signedPayment(strangerKey, account, entry(suite.token, bob, 1_000n))
      assert.strictEqual(yield* refusal(packed(stranger)), "SignerNotAuthorised")
      const elsewhere = yield* signedPayment(ownerKey, newWallet(), entry(suite.token, bob, 1_000n))
      assert.strictEqual(yield* refusal(packed(elsewhere)), "UnknownAccount")
      const nobody = yield* signedPayment(
        ownerKey,
        account,
        entry(suite.token, "0x0000000000000000000000000000000000000000", 1_000n)
      )
      assert.strictEqual(yield* refusal(packed(nobody)), "InvalidRecipient")
      const beyond = yield* signedPayment(ownerKey, account, entry(suite.token, bob, 2_000_000n))
      assert.strictEqual(yield* refusal(packed(beyond)), "InsufficientBalance")
      // A "token" without code answers nothing, as a token that returns no value does: it is no transfer.
      const codeless = yield* signedPayment(ownerKey, account, entry(newWallet(), bob, 1_000n))
      assert.strictEqual(yield* refusal(packed(codeless)), "TransferFailed")
      assert.strictEqual(yield* refusal(slice(bytes, 0, 262)), "InvalidPackedRequest")
      // The kind is signed too: the instant payment's bytes as a batch of one are another request.
      assert.strictEqual(yield* refusal(concat(["0x01", slice(bytes, 1)])), "InvalidSignature")
      assert.strictEqual(yield* refusal(concat(["0x03", slice(bytes, 1)])), "UnknownPackedKind")
      // The good one still executes: nothing above spent its salt.
      assert.strictEqual(yield* refusal(bytes), "executes")
      assert.deepStrictEqual(yield* balances(account, bob), [1_000_000n, 0n])
    })
  )

  it.effect("`executePacked` executes each on its own: one that fails, or runs out of its gas, changes nothing", () =>
    Effect.gen(function* () {
      const { client, gateway, suite } = yield* GatewayFixture
      const { account, ownerKey } = yield* freshTeam(1_000n)
      const [ann, ben, cal, dot] = [newWallet(), newWallet(), newWallet(), newWallet()]
      const requests = yield* Effect.forEach(
        [
          entry(suite.token, ann, 600n),
          entry(suite.token, ben, 600n),
          entry(suite.token, cal, 300n),
          entry(suite.token, dot, 100n)
        ],
        (payment) => signedPayment(ownerKey, account, payment)
      )
      // Ben's is beyond what is left after Ann's; Dot's may use 5,000 gas, far less than a payment needs.
      const caps = [200_000n, 200_000n, 200_000n, 5_000n]
      const data = concat(
        requests.flatMap((request, index) => [numberToHex(caps[index]!, { size: 3 }), packed(request)])
      )
      const wallet = yield* sender
      const answer = yield* Effect.promise(() =>
        client.simulateContract({
          address: suite.forwarder,
          abi: svcAccountForwarderAbi,
          functionName: "executePacked",
          args: [data],
          account: wallet.account
        })
      )
      assert.deepStrictEqual(
        answer.result.map((result) => result.ok),
        [true, false, true, false]
      )
      assert.isTrue(answer.result.every((result) => result.gasUsed > 0n))
      // Its own gas, not an estimate: an estimate finds the least gas at which the call returns, which may be too little
      // for a request that then fails alone.
      const hash = yield* Effect.promise(() =>
        wallet.writeContract({ ...answer.request, chain: null, gas: 1_000_000n })
      )
      const receipt = yield* Effect.promise(() => client.waitForTransactionReceipt({ hash }))
      assert.strictEqual(receipt.status, "success")
      const failed = parseEventLogs({ abi: svcAccountForwarderAbi, eventName: "RequestFailed", logs: receipt.logs })
      assert.deepStrictEqual(
        failed.map((log) => log.args.index),
        [1n, 3n]
      )
      // Ben's reverted with the account's own error, as the simulation answered it.
      assert.strictEqual(failed[0]?.args.reason, answer.result[1]?.reason)
      const executed = parseEventLogs({ abi: svcAccountForwarderAbi, eventName: "RequestExecuted", logs: receipt.logs })
      assert.deepStrictEqual(
        executed.map((log) => log.args.salt),
        [requests[0]!.request.salt, requests[2]!.request.salt]
      )
      assert.deepStrictEqual(yield* balances(account, ann, ben, cal, dot), [100n, 600n, 0n, 300n, 0n])
      assert.deepStrictEqual(yield* Effect.forEach(requests, (request) => isSaltUsed(gateway, request.request.salt)), [
        true,
        false,
        true,
        false
      ])
      // Nothing but a whole number of requests is taken.
      assert.strictEqual(yield* refusal("0x", "executePacked"), "InvalidPackedRequest")
      assert.strictEqual(yield* refusal(slice(data, 0, 300), "executePacked"), "InvalidPackedRequest")
    })
  )

  describe("the batcher", () => {
    it.effect("carries single payments waiting together packed, and one that does not pack beside them", () =>
      Effect.gen(function* () {
        const { client, gateway, suite } = yield* GatewayFixture
        const { account, ownerKey } = yield* freshTeam(1_000_000n)
        const payees = Array.from({ length: 6 }, newWallet)
        // Half instant payments, half batches of one (what a PUT of one payment paid now signs).
        const signedOne = (payee: Address, index: number) =>
          index % 2 === 0
            ? Effect.map(
                signedPayment(ownerKey, account, entry(suite.token, payee, 1_000n + BigInt(index))),
                (signed) => executePayment(gateway, signed)
              )
            : Effect.map(
                signedPayments(ownerKey, account, [entry(suite.token, payee, 1_000n + BigInt(index))]),
                (signed) => executePayments(gateway, signed)
              )
        const settling = yield* Effect.forEach(payees, signedOne)
        // An expiry beyond 5 bytes is valid on the chain, but does not pack.
        const far = yield* signedPayment(ownerKey, account, entry(suite.token, newWallet(), 7n), "viem", {
          expires: 2 ** 41
        })
        assert.isUndefined(packPayment(far))
        const settlements = yield* Effect.all([...settling, executePayment(gateway, far)], { concurrency: "unbounded" })
        assert.deepStrictEqual(
          settlements.map((settlement) => settlement.payments.map((payment) => [payment.outcome, payment.amount])),
          [...payees.map((_, index) => [["paid", 1_000n + BigInt(index)]]), [["paid", 7n]]]
        )
        const carriers = [...new Set(settlements.slice(0, 6).map((settlement) => settlement.transactionHash))]
        const functions = yield* Effect.forEach(carriers, (hash) =>
          Effect.promise(() => client.getTransaction({ hash })).pipe(
            Effect.map(
              (transaction) => decodeFunctionData({ abi: svcAccountForwarderAbi, data: transaction.input }).functionName
            )
          )
        )
        assert.isBelow(carriers.length, 6)
        assert.isTrue(functions.every((name) => name === "executePacked"))
        const farCarrier = yield* Effect.promise(() => client.getTransaction({ hash: settlements[6]!.transactionHash }))
        assert.notStrictEqual(
          decodeFunctionData({ abi: svcAccountForwarderAbi, data: farCarrier.input }).functionName,
          "executePacked"
        )
        assert.deepStrictEqual(
          yield* balances(...payees),
          payees.map((_, index) => 1_000n + BigInt(index))
        )
      })
    )
  })
})
