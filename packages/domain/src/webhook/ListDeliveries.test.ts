import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { webhookUseCases } from "../../test/UseCaseKit.ts"
import { seedEndpoint } from "../../test/WebhookKit.ts"
import type { DeliveryId, EventId, TeamId, WebhookId } from "../Ids.ts"
import { deliveryViewOf, listDeliveries } from "./ListDeliveries.ts"
import { sendTestDelivery } from "./SendTestDelivery.ts"

describe("listDeliveries", () => {
  it.effect("pages the log newest first behind a cursor; refuses a cursor it did not answer", () =>
    Effect.gen(function* () {
      const { admin, employee, endpoint } = yield* seedEndpoint
      const sent: Array<string> = []
      for (let i = 0; i < 3; i++) {
        sent.push((yield* sendTestDelivery(admin, endpoint, { event_type: "payment.sent" })).delivery_nanoid)
        yield* TestClock.adjust(1000)
      }
      const first = yield* listDeliveries(admin, endpoint, { limit: 2 })
      assert.deepStrictEqual(
        first.items.map((d) => d.delivery_nanoid),
        [sent[2], sent[1]]
      )
      assert.isString(first.next_cursor)
      const second = yield* listDeliveries(admin, endpoint, { limit: 2, cursor: first.next_cursor ?? "" })
      assert.deepStrictEqual(
        second.items.map((d) => d.delivery_nanoid),
        [sent[0]]
      )
      assert.isNull(second.next_cursor)
      const bad = yield* Effect.flip(listDeliveries(admin, endpoint, { cursor: "nope" }))
      assert.strictEqual(bad._tag, "InvalidCursor")
      assert.strictEqual((yield* Effect.flip(listDeliveries(employee, endpoint, {})))._tag, "WebhookNotFound")
    }).pipe(Effect.provide(webhookUseCases))
  )

  it("shows each attempt's kept body as text with whether it was cut; an attempt without an answer has none", () => {
    const attempt = { delivery_nanoid: "dl-000000000001" as DeliveryId, at: 0, duration_ms: 3 }
    const view = deliveryViewOf({
      nanoid: "dl-000000000001" as DeliveryId,
      webhook_nanoid: "wh-000000000001" as WebhookId,
      team_nanoid: "te-000000000001" as TeamId,
      event: { id: "ev-1" as EventId, event_type: "payment.sent", created: 0, idempotency_key: "k", data: {} },
      status: "pending",
      attempts: 3,
      created_at: 0,
      updated_at: 0,
      attempt_log: [
        { ...attempt, number: 1, error: "no answer within 15000 ms" },
        {
          ...attempt,
          number: 2,
          status_code: 500,
          error: "HTTP 500",
          response_body: { text: "<b>x</b>", truncated: true }
        },
        { ...attempt, number: 3, status_code: 204, response_body: { text: "", truncated: false } }
      ]
    })
    assert.deepStrictEqual(
      view.attempts.map((a) => [a.status_code, a.response_body, a.response_body_truncated]),
      [
        [null, null, false],
        [500, "<b>x</b>", true],
        [204, "", false]
      ]
    )
  })
})
