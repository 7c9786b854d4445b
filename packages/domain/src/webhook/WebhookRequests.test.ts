import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { nextAttemptAt, outcomeOf, retryDelaysMillis } from "./WebhookDelivery.ts"
import { CreateWebhookRequest, WebhookTestRequest } from "./WebhookRequests.ts"

const ok = (schema: Schema.Top, input: unknown) => Schema.decodeUnknownExit(schema as never)(input)._tag === "Success"

describe("webhook schemas and delivery rules", () => {
  it("the test body needs an event kind; version is 1 to 10, default 2", () => {
    assert.deepStrictEqual(Schema.decodeUnknownSync(WebhookTestRequest)({ event_type: "payment.sent" }), {
      event_type: "payment.sent",
      version: 2
    })
    assert.isTrue(ok(WebhookTestRequest, { event_type: "invite.accepted", version: 1 }))
    assert.isTrue(ok(WebhookTestRequest, { event_type: "invite.accepted", version: 10 }))
    for (const version of [0, 11, 1.5]) assert.isFalse(ok(WebhookTestRequest, { event_type: "payment.sent", version }))
    assert.isFalse(ok(WebhookTestRequest, { version: 2 }))
    assert.isFalse(ok(WebhookTestRequest, { event_type: "payment.unknown" }))
  })

  it("endpoints need an https URL (or loopback http) and distinct known events", () => {
    const body = {
      team_nanoid: "te-abcdefghijkl",
      url: "https://hooks.example/svc",
      events: ["payment.sent"],
      name: "ops"
    }
    assert.isTrue(ok(CreateWebhookRequest, body))
    assert.isTrue(ok(CreateWebhookRequest, { ...body, url: "http://127.0.0.1:8080/hook" }))
    assert.isFalse(ok(CreateWebhookRequest, { ...body, url: "http://hooks.example/svc" }))
    assert.isFalse(ok(CreateWebhookRequest, { ...body, url: "not a url" }))
    assert.isFalse(ok(CreateWebhookRequest, { ...body, events: [] }))
    assert.isFalse(ok(CreateWebhookRequest, { ...body, events: ["payment.sent", "payment.sent"] }))
  })

  it("2xx delivers, 410 disables, everything else retries on the schedule, then gives up", () => {
    assert.strictEqual(outcomeOf({ _tag: "Response", status: 204, durationMillis: 5 }), "delivered")
    assert.strictEqual(outcomeOf({ _tag: "Response", status: 410, durationMillis: 5 }), "gone")
    assert.strictEqual(outcomeOf({ _tag: "Response", status: 301, durationMillis: 5 }), "retry")
    assert.strictEqual(outcomeOf({ _tag: "Response", status: 500, durationMillis: 5 }), "retry")
    assert.strictEqual(outcomeOf({ _tag: "NoResponse", reason: "timeout", durationMillis: 15_000 }), "retry")
    assert.strictEqual(nextAttemptAt(1, 0, 0.5), 5_000)
    assert.strictEqual(nextAttemptAt(2, 1_000, 0), 1_000 + 270_000)
    assert.strictEqual(nextAttemptAt(retryDelaysMillis.length, 0, 0.5), 36_000_000)
    assert.isUndefined(nextAttemptAt(retryDelaysMillis.length + 1, 0, 0.5))
  })
})
