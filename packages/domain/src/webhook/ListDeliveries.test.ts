import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { webhookUseCases } from "../../test/UseCaseKit.ts"
import { seedEndpoint } from "../../test/WebhookKit.ts"
import { listDeliveries } from "./ListDeliveries.ts"
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
})
