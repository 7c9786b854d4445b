import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { verifyTypedData as ethersVerifyTypedData, TypedDataEncoder, Wallet } from "ethers"
import { keccak256, toHex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { Randomness } from "../Randomness.ts"
import { SignatureVerifier } from "../signature/SignatureVerifier.ts"
import {
  type PaymentEntry,
  PaymentsTypedDataBundle,
  PaymentTypedDataBundle,
  RolesTypedDataBundle,
  type TypedDataBundle
} from "./TypedData.ts"
import { makePaymentsTypedData, paymentsTypedData, paymentTypedData, rolesTypedData } from "./TypedDataBuilder.ts"
import {
  checkTypedDataExpiry,
  ensureSameTypedData,
  signTypedDataBundle,
  typedDataDigestUnsafe,
  verifyTypedDataSignature
} from "./TypedDataSignature.ts"
import { encodeTypeOf, typeHashOf } from "./TypeString.ts"

// Anvil's first two dev keys: well known, test only.
const key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
const otherKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d"
const signer = privateKeyToAccount(key).address

const location = { chainId: 42161, verifyingContract: "0x5FbDB2315678afecb367f032d93F642f64180aa3" } as const
const envelope = {
  from: signer,
  to: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
  salt: "72057594037927936123456789",
  expires: "1795766400"
} as const
const usdc = "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"
const entry = (n: number, overrides: Partial<PaymentEntry> = {}): PaymentEntry => ({
  id: keccak256(toHex(`pa-00000000000${n}`)),
  groupID: keccak256(toHex("pg-000000000001")),
  payAtTime: "1795766000",
  validMinutes: "1440",
  payType: "2",
  token: usdc,
  recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  amount: String(1_000_000 * n),
  data: "0x",
  ...overrides
})

const bundles = {
  payments: paymentsTypedData(location, envelope, [entry(1), entry(2, { payType: "1" }), entry(3)]),
  payment: paymentTypedData(
    location,
    envelope,
    entry(4, {
      payType: "3",
      recipient: "0xdc64a140aa3e981100a9beca4e685f962f0cf6c9",
      data: keccak256(toHex("ada@example.com"))
    })
  ),
  roles: rolesTypedData(location, envelope, [
    { role: "team_admin", account: "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65" },
    { role: "team_viewer", account: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc" }
  ])
}

// Frozen: the contracts hash these very strings and digests. A change here is a breaking change of the protocol.
const golden = {
  payments: {
    encodeType:
      "CreatePaymentsForwardRequest(address from,address to,uint256 salt,uint256 expires,SvcPaymentsRequest data)SvcPayment(bytes32 id,bytes32 groupID,uint256 payAtTime,uint256 validMinutes,uint256 payType,address token,address recipient,uint256 amount,bytes data)SvcPaymentsRequest(SvcPayment[] payments)",
    digest: "0x4547154d70823ad9c1c4fca957ecb5d9fe9c099cc16737f1324a33a2811edcd0"
  },
  payment: {
    encodeType:
      "CreatePaymentForwardRequest(address from,address to,uint256 salt,uint256 expires,SvcPayment data)SvcPayment(bytes32 id,bytes32 groupID,uint256 payAtTime,uint256 validMinutes,uint256 payType,address token,address recipient,uint256 amount,bytes data)",
    digest: "0x6fdc3dc67185cc5be476d980fd5e533e72260b63e1dd6191b408afab36b529ad"
  },
  roles: {
    encodeType:
      "SetRolesForwardRequest(address from,address to,uint256 salt,uint256 expires,SvcRoleGrant[] data)SvcRoleGrant(string role,address account)",
    digest: "0x78aae16bcd95f047559c01f7c9b66222460d4a7f5e824fe84b13f2461b8f3d54"
  }
} as const

const schemas = {
  payments: PaymentsTypedDataBundle,
  payment: PaymentTypedDataBundle,
  roles: RolesTypedDataBundle
} as const

const mutableTypes = (bundle: TypedDataBundle) => JSON.parse(JSON.stringify(bundle.types))

/** Every variant of the bundle with one signed leaf value changed. */
const tampered = (bundle: TypedDataBundle): Array<{ readonly path: string; readonly bundle: TypedDataBundle }> => {
  const variants: Array<{ path: string; bundle: TypedDataBundle }> = []
  const change = (value: string): string => {
    if (/^0x[0-9a-fA-F]{40}$/.test(value)) return "0x0000000000000000000000000000000000000001"
    if (/^0x[0-9a-fA-F]*$/.test(value))
      return value === "0x" ? "0x01" : `${value.slice(0, -1)}${value.endsWith("0") ? "1" : "0"}`
    if (/^[0-9]+$/.test(value)) return String(BigInt(value) + 1n)
    return `${value}x`
  }
  const walk = (value: unknown, path: ReadonlyArray<string | number>) => {
    if (typeof value === "string") {
      const copy = JSON.parse(JSON.stringify(bundle.typed_data))
      let target = copy
      for (const step of path.slice(0, -1)) target = target[step]
      target[path[path.length - 1] as string] = change(value)
      variants.push({ path: path.join("."), bundle: { ...bundle, typed_data: copy } as TypedDataBundle })
    } else if (Array.isArray(value))
      value.forEach((item, i) => {
        walk(item, [...path, i])
      })
    else if (value !== null && typeof value === "object")
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k])
  }
  walk(bundle.typed_data, [])
  return variants
}

describe("EIP-712 golden vectors against ethers 6", () => {
  for (const kind of ["payments", "payment", "roles"] as const) {
    const bundle = bundles[kind]

    it(`${kind}: the type string and type hash are the frozen ones, as ethers encodes them`, () => {
      const ethersEncoder = TypedDataEncoder.from(mutableTypes(bundle))
      assert.strictEqual(encodeTypeOf(bundle.types, bundle.primary_type), golden[kind].encodeType)
      assert.strictEqual(ethersEncoder.encodeType(bundle.primary_type), golden[kind].encodeType)
      assert.strictEqual(ethersEncoder.primaryType, bundle.primary_type)
      assert.strictEqual(typeHashOf(bundle.types, bundle.primary_type), keccak256(toHex(golden[kind].encodeType)))
    })

    it(`${kind}: the digest is the frozen one and equals ethers' TypedDataEncoder.hash`, () => {
      const digest = typedDataDigestUnsafe(bundle)
      assert.strictEqual(digest, TypedDataEncoder.hash(bundle.domain, mutableTypes(bundle), bundle.typed_data))
      assert.strictEqual(digest, golden[kind].digest)
    })

    it.effect(`${kind}: the domain's signature equals ethers' and viem's, on the bundle as sent in JSON`, () =>
      Effect.gen(function* () {
        const json = JSON.parse(JSON.stringify(bundle))
        const ours = yield* signTypedDataBundle(bundle, key)
        const ethers = yield* Effect.promise(() =>
          new Wallet(key).signTypedData(json.domain, json.types, json.typed_data)
        )
        const viem = yield* Effect.promise(() =>
          privateKeyToAccount(key).signTypedData({
            domain: json.domain,
            types: json.types,
            primaryType: json.primary_type,
            message: json.typed_data
          })
        )
        assert.strictEqual(ours, ethers)
        assert.strictEqual(ours, viem)
        assert.strictEqual(ethersVerifyTypedData(json.domain, json.types, json.typed_data, ours), signer)
        assert.deepStrictEqual(Schema.decodeUnknownSync(schemas[kind])(json), json)
        assert.strictEqual(
          yield* verifyTypedDataSignature({ bundle: json, signer, signature: ours }),
          typedDataDigestUnsafe(bundle)
        )
      }).pipe(Effect.provide(SignatureVerifier.layer))
    )

    it.effect(`${kind}: another key, any tampered field, another chain or another contract fail verification`, () =>
      Effect.gen(function* () {
        const signature = yield* signTypedDataBundle(bundle, key)
        const foreign = yield* signTypedDataBundle(bundle, otherKey)
        const refused = (candidate: TypedDataBundle, sig: `0x${string}`) =>
          Effect.flip(verifyTypedDataSignature({ bundle: candidate, signer, signature: sig })).pipe(
            Effect.map((error) => error._tag)
          )
        assert.strictEqual(yield* refused(bundle, foreign), "InvalidSignature")
        const variants = tampered(bundle)
        assert.isAtLeast(variants.length, kind === "roles" ? 8 : 13)
        for (const variant of variants) {
          assert.strictEqual(yield* refused(variant.bundle, signature), "InvalidSignature", variant.path)
        }
        assert.strictEqual(
          yield* refused({ ...bundle, domain: { ...bundle.domain, chainId: 1 } } as TypedDataBundle, signature),
          "InvalidSignature"
        )
        assert.strictEqual(
          yield* refused(
            {
              ...bundle,
              domain: { ...bundle.domain, verifyingContract: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512" }
            } as TypedDataBundle,
            signature
          ),
          "InvalidSignature"
        )
        const malformed = `0x${"ab".repeat(65)}` as const
        assert.strictEqual(yield* refused(bundle, malformed), "InvalidSignature")
      }).pipe(Effect.provide(SignatureVerifier.layer))
    )
  }
})

describe("fresh bundles", () => {
  it.effect("take a 256-bit salt from Randomness and expire 10 minutes after Clock", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1_795_766_000_500)
      const a = yield* makePaymentsTypedData(location, { from: envelope.from, to: envelope.to }, [entry(1)])
      const b = yield* makePaymentsTypedData(location, { from: envelope.from, to: envelope.to }, [entry(1)])
      assert.strictEqual(a.typed_data.expires, "1795766600")
      assert.notStrictEqual(a.typed_data.salt, b.typed_data.salt)
      assert.isTrue(BigInt(a.typed_data.salt) < 2n ** 256n && BigInt(a.typed_data.salt) > 2n ** 200n)
      assert.deepStrictEqual(a.domain, {
        name: "SvcAccountForwarder",
        version: "1.0.0",
        chainId: 42161,
        verifyingContract: location.verifyingContract
      })
      yield* checkTypedDataExpiry(a.typed_data)
      yield* TestClock.setTime(1_795_766_600_000)
      assert.strictEqual((yield* Effect.flip(checkTypedDataExpiry(a.typed_data)))._tag, "ExpiredTypedData")
    }).pipe(Effect.provide(Layer.mergeAll(Randomness.layerTest())))
  )

  it.effect("the client's typed_data must encode to what was issued", () =>
    Effect.gen(function* () {
      const issued = bundles.payments
      const lowerCased = JSON.parse(
        JSON.stringify(issued.typed_data).replace(/0x[0-9a-fA-F]{40}"/g, (address) => address.toLowerCase())
      )
      yield* ensureSameTypedData(issued, lowerCased)
      const changed = { ...issued.typed_data, salt: "1" }
      assert.strictEqual((yield* Effect.flip(ensureSameTypedData(issued, changed)))._tag, "TypedDataMismatch")
      assert.strictEqual(
        (yield* Effect.flip(ensureSameTypedData(issued, { nonsense: true })))._tag,
        "TypedDataMismatch"
      )
    })
  )
})
