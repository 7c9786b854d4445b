import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Wallet } from "ethers"
import { SiweMessage } from "siwe"
import { privateKeyToAccount } from "viem/accounts"
import { Randomness } from "../Randomness.ts"
import { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import {
  formatSiweMessage,
  makeSiweMessage,
  parseSiweMessage,
  type SiweExpectations,
  type SiweFields,
  verifySiweMessage
} from "./Siwe.ts"

// Anvil's first two dev keys: well known, test only.
const key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
const otherKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const account = privateKeyToAccount(key)
const other = privateKeyToAccount(otherKey)

const start = Date.parse("2026-11-21T08:00:00.000Z")
const expectations = (nonce: string): SiweExpectations => ({
  domain: "api.svc.example",
  uri: "https://api.svc.example/v2/auth/verify",
  chainId: 42161,
  nonce
})

const services = Layer.mergeAll(Randomness.layerTest(), SignatureVerifier.layer)

/** A message issued at `start` for the account, and its signature by `signer`. */
const signedMessage = (signer = account, request: { readonly ttlMillis?: number } = {}) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(start)
    const { message, fields } = yield* makeSiweMessage({
      address: account.address,
      domain: "api.svc.example",
      uri: "https://api.svc.example/v2/auth/verify",
      chainId: 42161,
      ...request
    })
    const signature = yield* Effect.promise(() => signer.signMessage({ message }))
    return { message, fields, signature }
  })

describe("SIWE", () => {
  it.effect("a fresh message signed by its wallet verifies and yields the wallet", () =>
    Effect.gen(function* () {
      const { message, fields, signature } = yield* signedMessage()
      assert.match(fields.nonce, /^[0-9a-f]{32}$/)
      assert.include(message, `Nonce: ${fields.nonce}`)
      assert.include(message, "Expiration Time: 2026-11-21T08:10:00.000Z")
      const verified = yield* verifySiweMessage({ message, signature, expected: expectations(fields.nonce) })
      assert.strictEqual(verified.address, account.address)
    }).pipe(Effect.provide(services))
  )

  it.effect("a signature made with ethers verifies too", () =>
    Effect.gen(function* () {
      const { message, fields } = yield* signedMessage()
      const signature = (yield* Effect.promise(() => new Wallet(key).signMessage(message))) as `0x${string}`
      yield* verifySiweMessage({ message, signature, expected: expectations(fields.nonce) })
    }).pipe(Effect.provide(services))
  )

  it.effect("nonces are 128 bits and differ between messages", () =>
    Effect.gen(function* () {
      const a = yield* signedMessage()
      const b = yield* signedMessage()
      assert.notStrictEqual(a.fields.nonce, b.fields.nonce)
      assert.strictEqual(a.fields.nonce.length * 4, 128)
    }).pipe(Effect.provide(services))
  )

  it.effect("an expired message fails with SiweExpired", () =>
    Effect.gen(function* () {
      const { message, fields, signature } = yield* signedMessage()
      yield* TestClock.setTime(start + 10 * 60 * 1000)
      const error = yield* Effect.flip(verifySiweMessage({ message, signature, expected: expectations(fields.nonce) }))
      assert.strictEqual(error._tag, "SiweExpired")
      assert.strictEqual(error.errorCode, "SIWE_EXPIRED")
    }).pipe(Effect.provide(services))
  )

  it.effect("a message issued in the future or before its Not Before fails as not yet valid", () =>
    Effect.gen(function* () {
      const { message, fields, signature } = yield* signedMessage()
      yield* TestClock.setTime(start - 1000)
      const early = yield* Effect.flip(verifySiweMessage({ message, signature, expected: expectations(fields.nonce) }))
      assert.strictEqual(early._tag, "SiweIssuedInFuture")

      const notBefore = message.replace(
        "Expiration Time: 2026-11-21T08:10:00.000Z",
        "Expiration Time: 2026-11-21T08:10:00.000Z\nNot Before: 2026-11-21T08:05:00.000Z"
      )
      const notBeforeSignature = yield* Effect.promise(() => account.signMessage({ message: notBefore }))
      yield* TestClock.setTime(start + 60_000)
      const pending = yield* Effect.flip(
        verifySiweMessage({ message: notBefore, signature: notBeforeSignature, expected: expectations(fields.nonce) })
      )
      assert.strictEqual(pending._tag, "SiweNotYetValid")
      yield* TestClock.setTime(start + 6 * 60_000)
      yield* verifySiweMessage({
        message: notBefore,
        signature: notBeforeSignature,
        expected: expectations(fields.nonce)
      })
    }).pipe(Effect.provide(services))
  )

  it.effect("a message for another domain, uri, chain or nonce fails with its own error", () =>
    Effect.gen(function* () {
      const { message, fields, signature } = yield* signedMessage()
      const base = expectations(fields.nonce)
      const cases = [
        [{ ...base, domain: "evil.example" }, "SiweDomainMismatch"],
        [{ ...base, uri: "https://evil.example/login" }, "SiweUriMismatch"],
        [{ ...base, chainId: 1 }, "SiweChainMismatch"],
        [{ ...base, nonce: "ffffffffffffffffffffffffffffffff" }, "SiweNonceMismatch"]
      ] as const
      for (const [expected, tag] of cases) {
        const error = yield* Effect.flip(verifySiweMessage({ message, signature, expected }))
        assert.strictEqual(error._tag, tag)
      }
    }).pipe(Effect.provide(services))
  )

  it.effect("messages are written as the reference implementation (siwe) writes them, and read back the same", () =>
    Effect.gen(function* () {
      const base: SiweFields = {
        domain: "api.svc.example",
        address: privateKeyToAccount(key).address as SiweFields["address"],
        uri: "https://api.svc.example/v2/auth/verify",
        version: "1",
        chainId: 42161,
        nonce: "0123456789abcdef0123456789abcdef",
        issuedAt: "2026-11-25T10:00:00.000Z"
      }
      for (const fields of [
        { ...base, statement: "Sign in to svc." },
        base,
        {
          ...base,
          scheme: "https",
          statement: "Sign in.",
          expirationTime: "2026-11-25T10:10:00.000Z",
          notBefore: "2026-11-25T09:59:00.000Z",
          requestId: "req-1",
          resources: ["https://api.svc.example/a", "ipfs://bafy"]
        }
      ] satisfies ReadonlyArray<SiweFields>) {
        const ours = yield* formatSiweMessage(fields)
        const reference = new SiweMessage({
          ...fields,
          resources: fields.resources === undefined ? undefined : [...fields.resources]
        } as Partial<SiweMessage>).prepareMessage()
        assert.strictEqual(ours, reference)
        const read = yield* parseSiweMessage(ours)
        assert.strictEqual(read.nonce, fields.nonce)
        assert.strictEqual(read.statement, fields.statement)
      }
      const refused = yield* Effect.flip(formatSiweMessage({ ...base, nonce: "short" }))
      assert.strictEqual(refused._tag, "SiweMalformedMessage")
    })
  )

  it.effect("a malformed message fails with SiweMalformedMessage", () =>
    Effect.gen(function* () {
      const { message, fields, signature } = yield* signedMessage()
      for (const text of [
        "hello",
        message.replace(account.address, account.address.toLowerCase()),
        message.replace("Version: 1", "Version: 2"),
        message.replace(`Nonce: ${fields.nonce}`, "Nonce: abc")
      ]) {
        const error = yield* Effect.flip(parseSiweMessage(text))
        assert.strictEqual(error._tag, "SiweMalformedMessage", text)
        assert.strictEqual(error.errorCode, "INVALID_SIWE_MESSAGE")
      }
      const error = yield* Effect.flip(verifySiweMessage({ message: "hello", signature, expected: expectations("x") }))
      assert.strictEqual(error._tag, "SiweMalformedMessage")
    }).pipe(Effect.provide(services))
  )

  it.effect("a signature by another wallet, or over altered text, fails with SiweSignatureMismatch", () =>
    Effect.gen(function* () {
      const { message, fields } = yield* signedMessage(other)
      const foreign = yield* Effect.promise(() => other.signMessage({ message }))
      const wrongSigner = yield* Effect.flip(
        verifySiweMessage({ message, signature: foreign, expected: expectations(fields.nonce) })
      )
      assert.strictEqual(wrongSigner._tag, "SiweSignatureMismatch")
      assert.strictEqual(wrongSigner.errorCode, "SIGNATURE_MISMATCH")

      const own = yield* Effect.promise(() => account.signMessage({ message }))
      const altered = message.replace("Sign in to svc.", "Sign in to svc!")
      const tampered = yield* Effect.flip(
        verifySiweMessage({ message: altered, signature: own, expected: expectations(fields.nonce) })
      )
      assert.strictEqual(tampered._tag, "SiweSignatureMismatch")
    }).pipe(Effect.provide(services))
  )
})
