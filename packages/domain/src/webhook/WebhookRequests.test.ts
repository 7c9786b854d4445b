import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { defaultRetrySchedule, nextAttemptAt, outcomeOf, retryDelaysMillis } from "./WebhookDelivery.ts"
import { CreateWebhookRequest, WebhookParams, WebhookTestRequest } from "./WebhookRequests.ts"

const ok = (schema: Schema.Top, input: unknown) => Schema.decodeUnknownExit(schema as never)(input)._tag === "Success"

describe("webhook schemas and delivery rules", () => {
  it("the test body needs an event kind; version is 1 to 10, by default the endpoint's (none in the body)", () => {
    assert.deepStrictEqual(Schema.decodeUnknownSync(WebhookTestRequest)({ event_type: "payment.sent" }), {
      event_type: "payment.sent"
    })
    assert.isTrue(ok(WebhookTestRequest, { event_type: "invite.accepted", version: 1 }))
    assert.isTrue(ok(WebhookTestRequest, { event_type: "invite.accepted", version: 10 }))
    for (const version of [0, 11, 1.5]) assert.isFalse(ok(WebhookTestRequest, { event_type: "payment.sent", version }))
    assert.isFalse(ok(WebhookTestRequest, { version: 2 }))
    assert.isFalse(ok(WebhookTestRequest, { event_type: "payment.unknown" }))
  })

  it("the path takes a 15-character wh- id", () => {
    assert.isTrue(ok(WebhookParams, { webhook_nanoid: "wh-abcdefghijkl" }))
    for (const id of ["wh-abcdefghijk", "wh-abcdefghijklm", "te-abcdefghijkl", "wh-abcdefghijk!"]) {
      assert.isFalse(ok(WebhookParams, { webhook_nanoid: id }), id)
    }
  })

  it("endpoints need an absolute URL without credentials and distinct known events", () => {
    const body = {
      team_nanoid: "te-abcdefghijkl",
      url: "https://hooks.example/svc",
      events: ["payment.sent"],
      name: "ops"
    }
    assert.isTrue(ok(CreateWebhookRequest, body))
    assert.isTrue(ok(CreateWebhookRequest, { ...body, url: "http://127.0.0.1:8080/hook" }))
    assert.isTrue(ok(CreateWebhookRequest, { ...body, url: "http://hooks.example/svc" }))
    // The scheme is the deployment's to refuse, saying what it accepts (WebhookUrlPolicy): the schema takes any.
    assert.isTrue(ok(CreateWebhookRequest, { ...body, url: "ftp://hooks.example/svc" }))
    assert.isFalse(ok(CreateWebhookRequest, { ...body, url: "https://user:pw@hooks.example/svc" }))
    assert.isFalse(ok(CreateWebhookRequest, { ...body, url: "not a url" }))
    assert.isFalse(ok(CreateWebhookRequest, { ...body, events: [] }))
    assert.isFalse(ok(CreateWebhookRequest, { ...body, events: ["payment.sent", "payment.sent"] }))
  })

  it("2xx delivers, 410 disables, everything else retries on the schedule, then gives up", () => {
    const answer = (status: number) =>
      ({ _tag: "Response", status, durationMillis: 5, body: { text: "", truncated: false } }) as const
    assert.strictEqual(outcomeOf(answer(204)), "delivered")
    assert.strictEqual(outcomeOf(answer(410)), "gone")
    assert.strictEqual(outcomeOf(answer(301)), "retry")
    assert.strictEqual(outcomeOf(answer(500)), "retry")
    assert.strictEqual(outcomeOf({ _tag: "NoResponse", reason: "timeout", durationMillis: 15_000 }), "retry")
    const s = defaultRetrySchedule
    assert.strictEqual(nextAttemptAt(s, 1, { firstAttemptAt: 0, failedAt: 0, jitter: 0.5 }), 5_000)
    assert.strictEqual(nextAttemptAt(s, 2, { firstAttemptAt: 0, failedAt: 1_000, jitter: 0 }), 1_000 + 270_000)
    assert.strictEqual(
      nextAttemptAt(s, retryDelaysMillis.length, { firstAttemptAt: 0, failedAt: 0, jitter: 0.5 }),
      36_000_000
    )
    // Then every 12 h, until an attempt fails 3 days or more after the first.
    assert.strictEqual(nextAttemptAt(s, 8, { firstAttemptAt: 0, failedAt: 1, jitter: 0.5 }), 1 + 12 * 3_600_000)
    assert.isUndefined(nextAttemptAt(s, 12, { firstAttemptAt: 0, failedAt: 72 * 3_600_000, jitter: 0.5 }))
    // Retry-After replaces the delay, never beyond 12 h.
    assert.strictEqual(
      nextAttemptAt(s, 3, { firstAttemptAt: 0, failedAt: 0, jitter: 0.5, retryAfterMillis: 2_000 }),
      2_000
    )
    assert.strictEqual(
      nextAttemptAt(s, 1, { firstAttemptAt: 0, failedAt: 0, jitter: 0.5, retryAfterMillis: 10 ** 9 }),
      12 * 3_600_000
    )
  })
})
