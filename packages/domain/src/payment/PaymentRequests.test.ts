import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { keccak256, toHex } from "viem"
import { amountCentsOf, claimIdOf, onchainIdOf, tokenAmountOf } from "./Payment.ts"
import {
  CreatePaymentsRequest,
  ExecutePaymentsRequest,
  InstantPaymentRequest,
  maxBatchSize,
  PaymentsQuery
} from "./PaymentRequests.ts"

const ok = (schema: Schema.Top, input: unknown) => Schema.decodeUnknownExit(schema as never)(input)._tag === "Success"

const instant = {
  from: "te-abcdefghijkl",
  amount_cents: 100,
  payment_data: { invoice_description: "Design work" },
  external_recipient_email: "ada@example.com"
}
const recipient = { to: "us-abcdefghijkl", amount_cents: 2500, currency_symbol: "USD", invoice_description: "May" }
const typedData = {
  from: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  to: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
  salt: "1",
  expires: "1795766400",
  data: {
    payments: [
      {
        id: `0x${"11".repeat(32)}`,
        groupID: `0x${"22".repeat(32)}`,
        payAtTime: "0",
        validMinutes: "0",
        payType: "1",
        token: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831",
        recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
        amount: "25000000",
        data: "0x"
      }
    ]
  }
}
const execute = {
  from: "te-abcdefghijkl",
  to: [recipient],
  pay_now: true,
  signer: "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
  typed_data: typedData,
  signature: `0x${"ab".repeat(65)}`
}

describe("payment request schemas (SPEC §4, §8)", () => {
  it("instant amount is 100 to 10^10 cents inclusive, and defaults fill currency, network and descriptions", () => {
    const decoded = Schema.decodeUnknownSync(InstantPaymentRequest)(instant)
    assert.strictEqual(decoded.currency_symbol, "USD")
    assert.strictEqual(decoded.network, "arbitrum")
    assert.strictEqual(decoded.payment_data.services_description, "")
    assert.strictEqual(decoded.payment_data.payment_details, "")
    assert.isTrue(ok(InstantPaymentRequest, { ...instant, amount_cents: 10_000_000_000 }))
    for (const amount_cents of [99, 10_000_000_001, 100.5, "100"]) {
      assert.isFalse(ok(InstantPaymentRequest, { ...instant, amount_cents }), String(amount_cents))
    }
    assert.isFalse(ok(InstantPaymentRequest, { ...instant, currency_symbol: "EUR" }))
    assert.isFalse(ok(InstantPaymentRequest, { ...instant, network: "ethereum" }))
    assert.isFalse(ok(InstantPaymentRequest, { ...instant, external_recipient_email: "not-an-email" }))
    assert.isFalse(ok(InstantPaymentRequest, { ...instant, from: "te-short" }))
  })

  it("a batch has 1 to maxBatchSize recipients", () => {
    const body = { from: "te-abcdefghijkl", to: [recipient], pay_now: false }
    assert.strictEqual(Schema.decodeUnknownSync(CreatePaymentsRequest)(body).network, "arbitrum")
    assert.isFalse(ok(CreatePaymentsRequest, { ...body, to: [] }))
    assert.isTrue(ok(CreatePaymentsRequest, { ...body, to: Array(maxBatchSize).fill(recipient) }))
    assert.isFalse(ok(CreatePaymentsRequest, { ...body, to: Array(maxBatchSize + 1).fill(recipient) }))
    // An intent's due time must fit what an account stores (uint40), or the chain would refuse it after signing.
    assert.isTrue(ok(CreatePaymentsRequest, { ...body, pay_now: false, pay_at_time: 2 ** 40 - 1 }))
    assert.isFalse(ok(CreatePaymentsRequest, { ...body, pay_now: false, pay_at_time: 2 ** 40 }))
    assert.isFalse(ok(CreatePaymentsRequest, { ...body, pay_now: false, pay_at_time: -1 }))
    assert.isFalse(ok(CreatePaymentsRequest, { ...body, pay_now: "yes" }))
  })

  it("execution needs a signer address and a 65-byte signature that is not all zero", () => {
    assert.isTrue(ok(ExecutePaymentsRequest, execute))
    for (const signature of [`0x${"0".repeat(130)}`, `0x${"ab".repeat(64)}`, `0x${"ab".repeat(66)}`, "ab".repeat(65)]) {
      assert.isFalse(ok(ExecutePaymentsRequest, { ...execute, signature }), signature)
    }
    for (const signer of ["0x123", "f39Fd6e51aad88F6F4ce6aB8827279cffFb92266", `0x${"g".repeat(40)}`]) {
      assert.isFalse(ok(ExecutePaymentsRequest, { ...execute, signer }), signer)
    }
    const { signature: _s, ...unsigned } = execute
    assert.isFalse(ok(ExecutePaymentsRequest, unsigned))
    const badEntry = { ...typedData, data: { payments: [{ ...typedData.data.payments[0], payType: "4" }] } }
    assert.isFalse(ok(ExecutePaymentsRequest, { ...execute, typed_data: badEntry }))
  })

  it("the payments query takes DESIGN §5's names and defaults, and refuses an inverted range", () => {
    const query = Schema.decodeUnknownSync(PaymentsQuery)({ team_nanoid: "te-abcdefghijkl" })
    assert.deepStrictEqual<unknown>(query, { team_nanoid: "te-abcdefghijkl", state: "all", query_type: "payable" })
    assert.isTrue(
      ok(PaymentsQuery, { team_nanoid: "te-abcdefghijkl", start_date: "2026-01-01", end_date: "2026-01-31" })
    )
    assert.isFalse(
      ok(PaymentsQuery, { team_nanoid: "te-abcdefghijkl", start_date: "2026-02-01", end_date: "2026-01-31" })
    )
    assert.isFalse(ok(PaymentsQuery, { team_nanoid: "te-abcdefghijkl", start_date: "2026-02-30" }))
    assert.isFalse(ok(PaymentsQuery, { team_nanoid: "te-abcdefghijkl", state: "removed" }))
    assert.isFalse(ok(PaymentsQuery, { team_nanoid: "te-abcdefghijkl", recipient: "te-abcdefghijkl" }))
  })

  it("amounts convert at 10^4 token units per cent; ids and claim ids are keccak256 of their normal form", () => {
    assert.strictEqual(tokenAmountOf(2500), "25000000")
    assert.strictEqual(tokenAmountOf(10_000_000_000), "100000000000000")
    assert.strictEqual(amountCentsOf("25000000"), 2500)
    assert.strictEqual(onchainIdOf("pa-abcdefghijkl"), keccak256(toHex("pa-abcdefghijkl")))
    assert.strictEqual(claimIdOf("  Ada@Example.COM "), keccak256(toHex("ada@example.com")))
  })
})
