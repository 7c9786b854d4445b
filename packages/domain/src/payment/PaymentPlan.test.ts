import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { keccak256, toHex } from "viem"
import { PaymentEntry } from "../eip712/TypedData.ts"
import type { PaymentGroupId, PaymentId } from "../Ids.ts"
import { escrowEntryOf, paymentEntriesOf } from "./PaymentPlan.ts"

const usdc = "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"
const group = "pg-000000000001" as PaymentGroupId
const payment = (n: number) => `pa-00000000000${n}` as PaymentId
const recipient = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"

describe("PaymentPlan", () => {
  it("pay_now signs immediate entries; otherwise intents at pay_at_time, valid for a day by default", () => {
    const planned = [
      { payment: payment(1), recipient, amountCents: 2500 },
      { payment: payment(2), recipient, amountCents: 100 }
    ] as const
    const now = paymentEntriesOf({ group, payNow: true, token: usdc }, planned)
    assert.deepStrictEqual(
      now.map((e) => [e.payType, e.payAtTime, e.validMinutes, e.amount]),
      [
        ["1", "0", "0", "25000000"],
        ["1", "0", "0", "1000000"]
      ]
    )
    assert.strictEqual(now[0].id, keccak256(toHex("pa-000000000001")))
    assert.strictEqual(now[1]?.groupID, keccak256(toHex("pg-000000000001")))
    const later = paymentEntriesOf({ group, payNow: false, token: usdc, payAtTime: 1_795_766_400 }, planned)
    assert.deepStrictEqual([later[0].payType, later[0].payAtTime, later[0].validMinutes], ["2", "1795766400", "1440"])
    for (const entry of [...now, ...later]) Schema.decodeUnknownSync(PaymentEntry)(entry)
  })

  it("an e-mail recipient is paid into escrow, claimable by the hash of the normalised address", () => {
    const escrow = "0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9"
    const entry = escrowEntryOf({
      payment: payment(3),
      group,
      escrow,
      email: " Ada@Example.com",
      amountCents: 100,
      token: usdc
    })
    assert.strictEqual(entry.payType, "3")
    assert.strictEqual(entry.recipient, escrow)
    assert.strictEqual(entry.data, keccak256(toHex("ada@example.com")))
    assert.strictEqual(entry.amount, "1000000")
    Schema.decodeUnknownSync(PaymentEntry)(entry)
  })
})
