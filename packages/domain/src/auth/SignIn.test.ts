import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { storageLayer } from "../../test/UseCaseKit.ts"
import { walletAddressOf } from "../Evm.ts"
import { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { SignIn, type SiweAudience } from "./SignIn.ts"
import { makeSiweMessage } from "./Siwe.ts"

const audience: SiweAudience = {
  domain: "api.svc.example",
  uri: "https://api.svc.example/v2/auth/verify",
  chainId: 42161,
  ttlMillis: 5 * 60_000
}

/** The sign-in use case on the SQLite nonce store and users, signatures checked by recovery. */
const signInLayer = SignIn.layer.pipe(Layer.provideMerge(Layer.merge(storageLayer, SignatureVerifier.layer)))

const wallet = () => privateKeyToAccount(generatePrivateKey())
type Wallet = ReturnType<typeof wallet>

/** A challenge for `owner`, signed by `signer` (the owner unless given), as the wallet answers it. */
const signedChallenge = (owner: Wallet, signer: Wallet = owner, svcid?: string) =>
  Effect.gen(function* () {
    const { siwe: message, nonce } = yield* SignIn.use((s) =>
      s.challenge(walletAddressOf(owner.address), audience, svcid)
    )
    const signature = yield* Effect.promise(() => signer.signMessage({ message }))
    return { message, signature, nonce }
  })

const userOf = (account: Wallet) => UserRepository.use((u) => u.findByWallet(account.address))

describe("SignIn", () => {
  it.effect("a wallet's first sign-in makes its user, with the svcid of the challenge; later ones find it", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-11-21T08:00:00.000Z"))
      const ada = wallet()
      assert.isTrue(Option.isNone(yield* userOf(ada)))
      const first = yield* SignIn.use((s) =>
        Effect.flatMap(signedChallenge(ada, ada, "svc-ada"), (signed) => s.complete(signed, audience))
      )
      assert.strictEqual(first.wallet.toLowerCase(), ada.address.toLowerCase())
      assert.strictEqual(first.svcid, "svc-ada")
      assert.strictEqual(first.created_at, "2026-11-21T08:00:00.000Z")
      assert.deepStrictEqual(yield* userOf(ada), Option.some(first))
      yield* TestClock.adjust(60_000)
      const again = yield* SignIn.use((s) =>
        Effect.flatMap(signedChallenge(ada), (signed) => s.complete(signed, audience))
      )
      assert.deepStrictEqual(again, first)
    }).pipe(Effect.provide(signInLayer))
  )

  it.effect("a signed challenge signs in once", () =>
    Effect.gen(function* () {
      const ada = wallet()
      const signed = yield* signedChallenge(ada)
      yield* SignIn.use((s) => s.complete(signed, audience))
      const replay = yield* Effect.flip(SignIn.use((s) => s.complete(signed, audience)))
      assert.strictEqual(replay._tag, "NonceNotFound")
    }).pipe(Effect.provide(signInLayer))
  )

  it.effect("another wallet's signature is refused, makes no user, and leaves the challenge to its wallet", () =>
    Effect.gen(function* () {
      const ada = wallet()
      const mallory = wallet()
      const forged = yield* signedChallenge(ada, mallory)
      assert.strictEqual(
        (yield* Effect.flip(SignIn.use((s) => s.complete(forged, audience))))._tag,
        "SiweSignatureMismatch"
      )
      assert.isTrue(Option.isNone(yield* userOf(ada)))
      assert.isTrue(Option.isNone(yield* userOf(mallory)))
      // The same challenge, signed by its wallet, still signs in.
      const signature = yield* Effect.promise(() => ada.signMessage({ message: forged.message }))
      yield* SignIn.use((s) => s.complete({ ...forged, signature }, audience))
      assert.isTrue(Option.isSome(yield* userOf(ada)))
    }).pipe(Effect.provide(signInLayer))
  )

  it.effect("a nonce issued to another wallet does not sign in the wallet that reuses it", () =>
    Effect.gen(function* () {
      const ada = wallet()
      const mallory = wallet()
      const adas = yield* signedChallenge(ada)
      // Mallory writes and signs a message of her own with Ada's nonce.
      const { message } = yield* makeSiweMessage({ ...audience, address: mallory.address, nonce: adas.nonce })
      const signature = yield* Effect.promise(() => mallory.signMessage({ message }))
      const refused = yield* Effect.flip(
        SignIn.use((s) => s.complete({ message, signature, nonce: adas.nonce }, audience))
      )
      assert.strictEqual(refused._tag, "NonceNotFound")
      assert.isTrue(Option.isNone(yield* userOf(mallory)))
      yield* SignIn.use((s) => s.complete(adas, audience))
    }).pipe(Effect.provide(signInLayer))
  )

  it.effect("only the message issued with the nonce signs in: each edit its wallet signs is refused", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-11-21T08:00:00.000Z"))
      const ada = wallet()
      const edits: ReadonlyArray<readonly [string, (message: string) => string]> = [
        ["statement", (m) => m.replace("Sign in to svc.", "Sign in to svc and pay anyone.")],
        ["no statement", (m) => m.replace("\nSign in to svc.\n", "\n")],
        ["Issued At", (m) => m.replace(/Issued At: \S+/, "Issued At: 2026-11-21T07:59:00.000Z")],
        ["Expiration Time", (m) => m.replace(/Expiration Time: \S+/, "Expiration Time: 2027-11-21T08:00:00.000Z")],
        ["no Expiration Time", (m) => m.replace(/\nExpiration Time: \S+/, "")],
        ["Not Before", (m) => `${m}\nNot Before: 2026-11-21T08:00:00.000Z`],
        ["Request ID", (m) => `${m}\nRequest ID: 1`],
        ["Resources", (m) => `${m}\nResources:\n- https://api.svc.example/v2/payments`]
      ]
      for (const [edit, change] of edits) {
        const { message, nonce } = yield* signedChallenge(ada)
        const edited = change(message)
        assert.notStrictEqual(edited, message, edit)
        const signature = yield* Effect.promise(() => ada.signMessage({ message: edited }))
        const refused = yield* Effect.flip(
          SignIn.use((s) => s.complete({ message: edited, signature, nonce }, audience))
        )
        assert.deepStrictEqual([refused._tag, refused.errorCode], ["SiweNotIssued", "SIWE_MISMATCH"], edit)
      }
      assert.isTrue(Option.isNone(yield* userOf(ada)))
      yield* SignIn.use((s) => Effect.flatMap(signedChallenge(ada), (signed) => s.complete(signed, audience)))
      assert.isTrue(Option.isSome(yield* userOf(ada)))
    }).pipe(Effect.provide(signInLayer))
  )

  it.effect("a message for another domain, URI or chain is refused", () =>
    Effect.gen(function* () {
      const ada = wallet()
      const signed = yield* signedChallenge(ada)
      const elsewhere = [
        [{ ...audience, domain: "evil.example" }, "SiweDomainMismatch"],
        [{ ...audience, uri: "https://evil.example/v2/auth/verify" }, "SiweUriMismatch"],
        [{ ...audience, chainId: 1 }, "SiweChainMismatch"]
      ] as const
      for (const [other, tag] of elsewhere) {
        assert.strictEqual((yield* Effect.flip(SignIn.use((s) => s.complete(signed, other))))._tag, tag)
      }
      assert.isTrue(Option.isNone(yield* userOf(ada)))
    }).pipe(Effect.provide(signInLayer))
  )

  it.effect("a challenge expires with its message: refused after its lifetime, accepted until then", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-11-21T08:00:00.000Z"))
      const ada = wallet()
      const late = yield* signedChallenge(ada)
      const onTime = yield* signedChallenge(ada)
      yield* TestClock.adjust(audience.ttlMillis! - 1)
      yield* SignIn.use((s) => s.complete(onTime, audience))
      yield* TestClock.adjust(1)
      assert.strictEqual((yield* Effect.flip(SignIn.use((s) => s.complete(late, audience))))._tag, "SiweExpired")
    }).pipe(Effect.provide(signInLayer))
  )
})
