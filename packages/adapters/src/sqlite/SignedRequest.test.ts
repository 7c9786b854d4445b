/**
 * The domain's check of a signed request (`authorizeSignedRequest`: sameness, expiry, signer, signature, one claim of
 * the salt), on the SQLite issued typed data store.
 */
import { assert, describe, it } from "@effect/vitest"
import { authorizeSignedRequest, IssuedRequestStore, paymentsTypedData, signTypedDataBundle } from "@svc/domain/eip712"
import type { InvoiceId, PaymentGroupId, PaymentId, TeamId, UserId } from "@svc/domain/Ids"
import { invoiceOf, onchainIdOf, tokenAmountOf } from "@svc/domain/payment"
import { SignatureVerifier } from "@svc/domain/signature"
import { Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import type { Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { SqliteDatabase } from "./SqliteDatabase.ts"
import * as SqliteIssuedRequestStore from "./SqliteIssuedRequestStore.ts"

const key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
const otherKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const admin = privateKeyToAccount(key).address
const other = privateKeyToAccount(otherKey).address

const team = "te-000000000001" as TeamId
const account = "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
const bundle = paymentsTypedData(
  { chainId: 42161, verifyingContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3" },
  { from: admin, to: account, salt: "42", expires: "1795766400" },
  [
    {
      id: onchainIdOf("pa-000000000001"),
      groupID: onchainIdOf("pg-000000000001"),
      payAtTime: "0",
      validMinutes: "0",
      payType: "1",
      token: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
      recipient: "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65",
      amount: tokenAmountOf(2500),
      data: "0x"
    }
  ]
)

const issue = Effect.gen(function* () {
  yield* TestClock.setTime(1_795_766_000_000)
  const store = yield* IssuedRequestStore
  yield* store.issue({
    kind: "batch",
    salt: "42",
    team,
    issuedTo: "us-000000000001" as UserId,
    signer: admin,
    bundle,
    request: {
      body: { from: team, to: [], pay_now: true },
      group_nanoid: "pg-000000000001" as PaymentGroupId,
      account,
      payments: [
        {
          nanoid: "pa-000000000001" as PaymentId,
          invoice_nanoid: "iv-000000000001" as InvoiceId,
          recipient_nanoid: "us-000000000002" as UserId,
          amount_cents: 2500,
          invoice: invoiceOf("")
        }
      ]
    }
  })
  return yield* signTypedDataBundle(bundle, key)
})

/** The same signature with the high `s` (n - s) and the other `v`: valid for ecrecover, refused by EIP-2. */
const malleableTwin = (signature: Hex): Hex => {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130, 132), 16)
  return `${signature.slice(0, 66)}${(n - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}` as Hex
}

const tagOf = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error._tag)

const services = Layer.mergeAll(
  SqliteIssuedRequestStore.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: ":memory:" })), Layer.orDie),
  SignatureVerifier.layer
)

describe("authorizeSignedRequest", () => {
  it.effect("accepts the issued request signed by its from, once", () =>
    Effect.gen(function* () {
      const signature = yield* issue
      const request = { typedData: JSON.parse(JSON.stringify(bundle.typed_data)), signer: admin, signature }
      const issued = yield* authorizeSignedRequest(request)
      assert.strictEqual(issued.claimedAt, 1_795_766_000_000)
      assert.strictEqual(yield* tagOf(authorizeSignedRequest(request)), "AlreadyClaimed")
    }).pipe(Effect.provide(services))
  )

  it.effect("of concurrent executions of one salt exactly one succeeds", () =>
    Effect.gen(function* () {
      const signature = yield* issue
      const request = { typedData: bundle.typed_data, signer: admin, signature }
      const exits = yield* Effect.all(
        Array.from({ length: 8 }, () => Effect.exit(authorizeSignedRequest(request))),
        {
          concurrency: "unbounded"
        }
      )
      assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
    }).pipe(Effect.provide(services))
  )

  it.effect("refuses unknown salts, altered copies, expired requests, other signers and bad signatures", () =>
    Effect.gen(function* () {
      const signature = yield* issue
      const foreign = yield* signTypedDataBundle(bundle, otherKey)
      const typedData = bundle.typed_data
      assert.strictEqual(
        yield* tagOf(authorizeSignedRequest({ typedData: { ...typedData, salt: "43" }, signer: admin, signature })),
        "TypedDataNotFound"
      )
      const altered = {
        ...typedData,
        data: { payments: [{ ...typedData.data.payments[0], amount: tokenAmountOf(2501) }] }
      }
      assert.strictEqual(
        yield* tagOf(authorizeSignedRequest({ typedData: altered, signer: admin, signature })),
        "TypedDataMismatch"
      )
      assert.strictEqual(
        yield* tagOf(authorizeSignedRequest({ typedData, signer: other, signature: foreign })),
        "InvalidSignature"
      )
      assert.strictEqual(
        yield* tagOf(authorizeSignedRequest({ typedData, signer: admin, signature: foreign })),
        "InvalidSignature"
      )
      yield* TestClock.setTime(1_795_766_400_000)
      assert.strictEqual(
        yield* tagOf(authorizeSignedRequest({ typedData, signer: admin, signature })),
        "ExpiredTypedData"
      )
      // Expired (where an executed request would answer its result), its malleable twin is still a bad signature.
      assert.strictEqual(
        yield* tagOf(authorizeSignedRequest({ typedData, signer: admin, signature: malleableTwin(signature) })),
        "InvalidSignature"
      )
      // None of the refusals used up the salt.
      yield* TestClock.setTime(1_795_766_399_000)
      yield* authorizeSignedRequest({ typedData, signer: admin, signature })
    }).pipe(Effect.provide(services))
  )

  it.effect("a claim released by its holder can execute again; another token releases nothing", () =>
    Effect.gen(function* () {
      const signature = yield* issue
      const request = { typedData: bundle.typed_data, signer: admin, signature }
      const store = yield* IssuedRequestStore
      const first = yield* authorizeSignedRequest(request)
      // Only the holder's token releases it.
      assert.isFalse(yield* store.release("42", (first.claim.token + 1) as never))
      assert.strictEqual(yield* tagOf(authorizeSignedRequest(request)), "AlreadyClaimed")
      assert.isTrue(yield* store.release("42", first.claim.token))
      const second = yield* authorizeSignedRequest(request)
      assert.isAbove(second.claim.token, first.claim.token)
      assert.strictEqual(second.signature, signature)
    }).pipe(Effect.provide(services))
  )
})
