/**
 * Sign-in with Ethereum end to end in the domain (challenge, signature, single-use nonce), on the SQLite nonce store.
 */
import { assert, describe, it } from "@effect/vitest"
import { completeSiweSignIn, issueSiweChallenge, parseSiweMessage, type SiweAudience } from "@svc/domain/auth"
import { Randomness } from "@svc/domain/Randomness"
import { SignatureVerifier } from "@svc/domain/signature"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { privateKeyToAccount } from "viem/accounts"
import { SqliteDatabase } from "./SqliteDatabase.ts"
import * as SqliteNonceStore from "./SqliteNonceStore.ts"

const account = privateKeyToAccount("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
const other = privateKeyToAccount("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
const audience: SiweAudience = {
  domain: "api.svc.example",
  uri: "https://api.svc.example/v2/auth/verify",
  chainId: 42161
}
const services = Layer.mergeAll(
  SqliteNonceStore.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: ":memory:" })), Layer.orDie),
  Randomness.layerTest(),
  SignatureVerifier.layer
)

const challenge = (wallet = account.address) =>
  Effect.gen(function* () {
    yield* TestClock.setTime(Date.parse("2026-11-21T08:00:00.000Z"))
    const { siwe: message } = yield* issueSiweChallenge(wallet, audience)
    const { nonce } = yield* parseSiweMessage(message)
    return { message, nonce }
  })

const tagOf = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.map(Effect.flip(effect), (error) => error._tag)

describe("sign-in", () => {
  it.effect("the svcid given with the challenge comes back with the signed-in wallet", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-11-21T08:00:00.000Z"))
      const { siwe: message } = yield* issueSiweChallenge(account.address, audience, "svc-ada")
      const { nonce } = yield* parseSiweMessage(message)
      const signature = yield* Effect.promise(() => account.signMessage({ message }))
      const fields = yield* completeSiweSignIn({ message, signature, nonce }, audience)
      assert.strictEqual(fields.svcid, "svc-ada")
      const plain = yield* challenge()
      const without = yield* completeSiweSignIn(
        { ...plain, signature: yield* Effect.promise(() => account.signMessage({ message: plain.message })) },
        audience
      )
      assert.isUndefined(without.svcid)
    }).pipe(Effect.provide(services))
  )

  it.effect("a signed challenge signs in once; a replay is refused", () =>
    Effect.gen(function* () {
      const { message, nonce } = yield* challenge()
      const signature = yield* Effect.promise(() => account.signMessage({ message }))
      const fields = yield* completeSiweSignIn({ message, signature, nonce }, audience)
      assert.strictEqual(fields.address, account.address)
      assert.strictEqual(yield* tagOf(completeSiweSignIn({ message, signature, nonce }, audience)), "NonceNotFound")
    }).pipe(Effect.provide(services))
  )

  it.effect("a bad signature does not spend the nonce", () =>
    Effect.gen(function* () {
      const { message, nonce } = yield* challenge()
      const forged = yield* Effect.promise(() => other.signMessage({ message }))
      assert.strictEqual(
        yield* tagOf(completeSiweSignIn({ message, signature: forged, nonce }, audience)),
        "SiweSignatureMismatch"
      )
      const signature = yield* Effect.promise(() => account.signMessage({ message }))
      yield* completeSiweSignIn({ message, signature, nonce }, audience)
    }).pipe(Effect.provide(services))
  )

  it.effect("a nonce never issued, or issued to another wallet, is refused", () =>
    Effect.gen(function* () {
      const { message: otherMessage } = yield* challenge(other.address)
      const { nonce: otherNonce } = yield* parseSiweMessage(otherMessage)
      // The account signs a message carrying the nonce issued to `other`.
      const { message } = yield* challenge()
      const stolen = message.replace(/Nonce: \w+/, `Nonce: ${otherNonce}`)
      const signature = yield* Effect.promise(() => account.signMessage({ message: stolen }))
      assert.strictEqual(
        yield* tagOf(completeSiweSignIn({ message: stolen, signature, nonce: otherNonce }, audience)),
        "NonceNotFound"
      )
      // The attempt did not spend the nonce: its owner still signs in with it.
      const ownerSignature = yield* Effect.promise(() => other.signMessage({ message: otherMessage }))
      const signedIn = yield* completeSiweSignIn(
        { message: otherMessage, signature: ownerSignature, nonce: otherNonce },
        audience
      )
      assert.strictEqual(signedIn.address, other.address)
      const invented = message.replace(/Nonce: \w+/, "Nonce: 0123456789abcdef0123456789abcdef")
      const inventedSignature = yield* Effect.promise(() => account.signMessage({ message: invented }))
      assert.strictEqual(
        yield* tagOf(
          completeSiweSignIn(
            { message: invented, signature: inventedSignature, nonce: "0123456789abcdef0123456789abcdef" },
            audience
          )
        ),
        "NonceNotFound"
      )
    }).pipe(Effect.provide(services))
  )

  it.effect("after the message's lifetime the sign-in is refused", () =>
    Effect.gen(function* () {
      const { message, nonce } = yield* challenge()
      const signature = yield* Effect.promise(() => account.signMessage({ message }))
      yield* TestClock.adjust("10 minutes")
      assert.strictEqual(yield* tagOf(completeSiweSignIn({ message, signature, nonce }, audience)), "SiweExpired")
    }).pipe(Effect.provide(services))
  )
})
