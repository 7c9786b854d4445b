import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"
import { IdGenerator } from "../Ids.ts"
import { Randomness } from "../Randomness.ts"
import { categoryOf, EventCatalog, EventTypeSchema, eventTypes, eventTypesOf } from "./EventCatalog.ts"
import { EventEnvelopeV1, EventEnvelopeV2, makeDomainEvent, renderEnvelope } from "./EventEnvelope.ts"

// SPEC §6, verbatim, by category.
const spec = {
  payments: [
    "payment.sent",
    "payment.group.created",
    "payment.canceled",
    "payment.failed",
    "payment.subscription.created",
    "payment.subscription.paid",
    "payment.chargeback.created",
    "payment.chargeback.paid",
    "payment.cash_requirement.created",
    "payment.cash_requirement.due"
  ],
  deposits: [
    "deposit.received",
    "deposit.crypto",
    "deposit.crosschain",
    "deposit.bitcoin",
    "deposit.fiat",
    "token.transfer",
    "swap.token",
    "withdraw_account.duplicated_detected"
  ],
  invites: ["invite.accepted", "invite.expired", "invite.rejected"],
  onboarding: [
    "onboarding.step_updated.basic_data",
    "onboarding.step_updated.kyc.accepted",
    "onboarding.step_updated.kyc.rejected",
    "onboarding.step_updated.kyc.pending",
    "onboarding.step_updated.rsk",
    "onboarding.step_updated.documents",
    "onboarding.completed"
  ],
  team: ["team.member_blocked", "team.member_added", "team.member_removed"],
  documents: ["document.signed", "document.expired", "document.closed"],
  invoices: ["invoice.created", "invoice.canceled"],
  action_items: ["action_item.created", "action_item.completed", "action_item.finished"]
} as const

// Beyond the spec: an endpoint disabled (issue 22), a payout address changed (issue 39).
const beyond = { webhooks: ["webhook.endpoint.disabled"], deposits: ["withdraw_account.updated"] } as const

describe("EventCatalog", () => {
  it("holds exactly the kinds of SPEC §6, each in its category, and the kinds beyond it", () => {
    const all = [...Object.values(spec).flat(), ...Object.values(beyond).flat()]
    assert.strictEqual(eventTypes.length, all.length)
    assert.strictEqual(new Set(eventTypes).size, eventTypes.length)
    assert.deepStrictEqual([...eventTypes], all)
    const categories = { ...spec, webhooks: beyond.webhooks, deposits: [...spec.deposits, ...beyond.deposits] }
    for (const [category, kinds] of Object.entries(categories)) {
      assert.deepStrictEqual(eventTypesOf(category as keyof typeof spec), kinds)
      for (const kind of kinds) assert.strictEqual(categoryOf(kind), category)
    }
    assert.strictEqual(Object.keys(EventCatalog).length, 41)
  })

  it("the schema accepts the kinds and nothing else", () => {
    assert.strictEqual(Schema.decodeUnknownSync(EventTypeSchema)("payment.sent"), "payment.sent")
    assert.isTrue(Schema.decodeUnknownExit(EventTypeSchema)("payment.payment_sent")._tag === "Failure")
  })
})

describe("EventEnvelope", () => {
  it.effect("renders major 2 with data and id, major 1 with the payload under its key", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(1_795_766_400_000)
      const event = yield* makeDomainEvent({
        event_type: "payment.group.created",
        data: { nanoid: "pg-000000000001", payments: [] },
        request_id: "req-1"
      })
      assert.strictEqual(event.id, "ev-000000000001")
      assert.strictEqual(event.created, 1_795_766_400)
      assert.match(event.idempotency_key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)

      const v2 = Schema.decodeUnknownSync(EventEnvelopeV2)(renderEnvelope(event, 2))
      assert.deepStrictEqual(v2, {
        object: "event",
        id: event.id,
        created: event.created,
        event_type: "payment.group.created",
        event_version: "2.0",
        idempotency_key: event.idempotency_key,
        request_id: "req-1",
        data: event.data
      })
      const v1 = Schema.decodeUnknownSync(EventEnvelopeV1)(renderEnvelope(event, 1))
      assert.strictEqual(v1.event_version, "1.0")
      assert.deepStrictEqual(v1.payment_group, event.data)
      assert.isFalse("id" in v1)
      assert.isFalse("data" in v1)
      assert.isTrue(Schema.decodeUnknownExit(EventEnvelopeV2)(renderEnvelope(event, 1))._tag === "Failure")
    }).pipe(Effect.provide(Layer.mergeAll(IdGenerator.layerTest, Randomness.layerTest())))
  )
})
