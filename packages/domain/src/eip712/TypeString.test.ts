/**
 * `encodeTypeOf` and `typeHashOf` on EIP-712's own example (the `Mail` and `Person` types of the EIP, with its type
 * hash), beside ethers' `TypedDataEncoder`; a primary type not among the types is refused by all three.
 */
import { assert, describe, it } from "@effect/vitest"
import { TypedDataEncoder } from "ethers"
import { encodeTypeOf, typeHashOf } from "./TypeString.ts"

/** EIP-712's example types (eips.ethereum.org/EIPS/eip-712, "Example"). */
const types = {
  Person: [
    { name: "name", type: "string" },
    { name: "wallet", type: "address" }
  ],
  Mail: [
    { name: "from", type: "Person" },
    { name: "to", type: "Person" },
    { name: "contents", type: "string" }
  ]
}

describe("EIP-712 encodeType", () => {
  it("Mail encodes as the EIP writes it, with the EIP's type hash", () => {
    assert.strictEqual(
      encodeTypeOf(types, "Mail"),
      "Mail(Person from,Person to,string contents)Person(string name,address wallet)"
    )
    assert.strictEqual(typeHashOf(types, "Mail"), "0xa0cedeb2dc280ba39b857546d74f5549c3a1d7bdc2dd96bf881f76108e23dac2")
    assert.strictEqual(encodeTypeOf(types, "Mail"), TypedDataEncoder.from(types).encodeType("Mail"))
  })

  it("a primary type not among the types is refused, not encoded as `Name()`", () => {
    const { Mail: _mail, ...withoutMail } = types
    assert.throws(() => encodeTypeOf(withoutMail, "Mail"), /Mail is not one of the types/)
    assert.throws(() => typeHashOf(types, "Message"), /Message is not one of the types/)
    // An inherited name is no type either.
    assert.throws(() => encodeTypeOf(types, "toString"), /not one of the types/)
    assert.throws(() => TypedDataEncoder.from(types).encodeType("Message"))
  })
})
