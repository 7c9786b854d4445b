import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { TypedDataEncoder, Wallet } from "ethers"
import { getAddress, keccak256, toHex } from "viem"
import { Uint256String } from "../Evm.ts"
import {
  type PaymentEntry,
  PaymentsTypedDataBundle,
  PaymentTypedDataBundle,
  RolesTypedDataBundle
} from "./TypedData.ts"
import { paymentsTypedData, paymentTypedData, rolesTypedData } from "./TypedDataBuilder.ts"
import { signTypedDataBundle, typedDataDigestUnsafe } from "./TypedDataSignature.ts"

const key = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"

// Random inputs: seeds (hashed into ids, addresses, bytes and role names) and decimal uint256 values.
const Seed = Schema.String
const Count = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 6 }))
const word = (seed: string, label: string) => keccak256(toHex(`${seed}/${label}`))
const address = (seed: string, label: string) => getAddress(`0x${word(seed, label).slice(26)}`)

const entryOf = (seed: string, i: number, amount: string, payAtTime: string): PaymentEntry => ({
  id: word(seed, `id${i}`),
  groupID: word(seed, "group"),
  payAtTime,
  validMinutes: String(i * 60),
  payType: (["1", "2", "3"] as const)[i % 3] ?? "1",
  token: address(seed, "token"),
  recipient: address(seed, `recipient${i}`),
  amount,
  data: i % 2 === 0 ? "0x" : (word(seed, `data${i}`).slice(0, 2 + 2 * (i + 1)) as `0x${string}`)
})

const bundlesOf = (seed: string, count: number, amount: string, salt: string, roleSeed: string) => {
  const role = `r_${word(roleSeed, "role").slice(2, 2 + (roleSeed.length % 40) + 1)}`
  const location = { chainId: 1 + (seed.length % 50_000), verifyingContract: address(seed, "forwarder") }
  const envelope = { from: address(seed, "from"), to: address(seed, "to"), salt, expires: amount }
  const entries = Array.from({ length: count }, (_, i) => entryOf(seed, i, amount, salt)) as [
    PaymentEntry,
    ...Array<PaymentEntry>
  ]
  return [
    [PaymentsTypedDataBundle, paymentsTypedData(location, envelope, entries)],
    [PaymentTypedDataBundle, paymentTypedData(location, envelope, entries[0])],
    [
      RolesTypedDataBundle,
      rolesTypedData(location, envelope, [
        { role, account: address(seed, "account") },
        { role: `${role}_2`, account: address(seed, "account2") }
      ])
    ]
  ] as const
}

describe("EIP-712 bundles (properties, against ethers 6)", () => {
  it.prop(
    "for any values, the digest equals ethers' and the JSON bundle decodes with its schema",
    [Seed, Count, Uint256String, Uint256String, Schema.String],
    ([seed, count, amount, salt, role]) => {
      for (const [schema, bundle] of bundlesOf(seed, count, amount, salt, role)) {
        const json = JSON.parse(JSON.stringify(bundle))
        assert.strictEqual(
          typedDataDigestUnsafe(bundle),
          TypedDataEncoder.hash(json.domain, json.types, json.typed_data)
        )
        assert.deepStrictEqual(Schema.decodeUnknownSync(schema)(json), json)
      }
    },
    { arbitrary: { runs: 50 } }
  )

  it.effect.prop(
    "for any values, the domain's signature equals ethers'",
    [Seed, Count, Uint256String, Uint256String, Schema.String],
    ([seed, count, amount, salt, role]) =>
      Effect.gen(function* () {
        for (const [, bundle] of bundlesOf(seed, count, amount, salt, role)) {
          const json = JSON.parse(JSON.stringify(bundle))
          const ethers = yield* Effect.promise(() =>
            new Wallet(key).signTypedData(json.domain, json.types, json.typed_data)
          )
          assert.strictEqual(yield* signTypedDataBundle(bundle, key), ethers)
        }
      }),
    { arbitrary: { runs: 15 } }
  )
})
