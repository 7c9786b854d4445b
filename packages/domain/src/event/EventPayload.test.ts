import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import type { EventId } from "../Ids.ts"
import { eventTypes } from "./EventCatalog.ts"
import { EventEnvelopeV1, EventEnvelopeV2, payloadKeyOf, renderEnvelope } from "./EventEnvelope.ts"
import {
  DepositEventPayload,
  InviteEventPayload,
  InvoiceEventPayload,
  PaymentEventPayload,
  PaymentGroupEventPayload,
  samplePayloadOf,
  TokenTransferEventPayload
} from "./EventPayload.ts"

describe("sample payloads", () => {
  it("every kind has a test payload that renders as a valid envelope of both majors", () => {
    for (const type of eventTypes) {
      const data = samplePayloadOf(type)
      assert.strictEqual(data.test, true)
      const event = {
        id: "ev-000000000001" as EventId,
        event_type: type,
        created: 1_795_766_400,
        idempotency_key: "85420805-0b5e-4b11-b7f4-c6f05db7120b",
        data
      }
      Schema.decodeUnknownSync(EventEnvelopeV2)(renderEnvelope(event, 2))
      const v1 = Schema.decodeUnknownSync(EventEnvelopeV1)(renderEnvelope(event, 1))
      assert.deepStrictEqual(v1[payloadKeyOf(type)], data, type)
    }
  })

  it("payments, groups, invites and invoices follow their payload schemas", () => {
    for (const type of ["payment.sent", "payment.failed", "payment.canceled"] as const) {
      const payment = Schema.decodeUnknownSync(PaymentEventPayload)(samplePayloadOf(type))
      assert.strictEqual(payment.state, type.split(".")[1] === "sent" ? "complete" : type.split(".")[1])
    }
    Schema.decodeUnknownSync(PaymentGroupEventPayload)(samplePayloadOf("payment.group.created"))
    for (const type of ["invite.accepted", "invite.rejected", "invite.expired"] as const) {
      assert.strictEqual(Schema.decodeUnknownSync(InviteEventPayload)(samplePayloadOf(type)).status, type.slice(7))
    }
    assert.strictEqual(
      Schema.decodeUnknownSync(InvoiceEventPayload)(samplePayloadOf("invoice.created")).status,
      "submitted"
    )
    assert.strictEqual(
      Schema.decodeUnknownSync(InvoiceEventPayload)(samplePayloadOf("invoice.canceled")).status,
      "canceled"
    )
  })

  it("deposits and transfers between teams follow their payload schemas, in the samples and docs/webhooks.md", () => {
    assert.strictEqual(
      Schema.decodeUnknownSync(DepositEventPayload)(samplePayloadOf("deposit.received")).status,
      "complete"
    )
    Schema.decodeUnknownSync(TokenTransferEventPayload)(samplePayloadOf("token.transfer"))
    const doc = readFileSync(new URL("../../../../docs/webhooks.md", import.meta.url), "utf8")
    const section = doc.split("### `deposit.received` and `token.transfer`")[1]?.split("\n### ")[0] ?? ""
    const examples = Array.from(section.matchAll(/```json\n([\s\S]*?)```/g), ([, json]) => JSON.parse(json ?? ""))
    assert.deepStrictEqual(
      examples.map((example) => example.event_type),
      ["deposit.received", "token.transfer"]
    )
    for (const example of examples) {
      Schema.decodeUnknownSync(EventEnvelopeV2)(example)
      const schema = example.event_type === "token.transfer" ? TokenTransferEventPayload : DepositEventPayload
      Schema.decodeUnknownSync(schema)(example.data)
    }
  })
})

describe("docs/webhooks.md", () => {
  it("its invoice examples are envelopes whose payloads follow InvoiceEventPayload", () => {
    const doc = readFileSync(new URL("../../../../docs/webhooks.md", import.meta.url), "utf8")
    for (const type of ["invoice.created", "invoice.canceled"] as const) {
      const section = doc.split(`### \`${type}\``)[1]?.split("\n### ")[0] ?? ""
      const examples = Array.from(section.matchAll(/```json\n([\s\S]*?)```/g), ([, json]) => JSON.parse(json ?? ""))
      assert.isNotEmpty(examples, type)
      for (const example of examples) {
        const payload = example.event_version === "1.0" ? example.invoice : example.data
        Schema.decodeUnknownSync(example.event_version === "1.0" ? EventEnvelopeV1 : EventEnvelopeV2)(example)
        assert.strictEqual(example.event_type, type)
        Schema.decodeUnknownSync(InvoiceEventPayload)(payload)
      }
    }
  })
})
