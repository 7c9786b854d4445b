import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { webhookUseCases } from "../../test/UseCaseKit.ts"
import { seedEndpoint } from "../../test/WebhookKit.ts"
import { recoverDeliveries } from "./RecoverDeliveries.ts"
import { sendTestDelivery } from "./SendTestDelivery.ts"
import { WebhookDeliveryStore } from "./WebhookRepository.ts"

describe("recoverDeliveries", () => {
  it.effect("re-queues the failed deliveries created since the time given, and only those", () =>
    Effect.gen(function* () {
      const { admin, employee, endpoint } = yield* seedEndpoint
      const store = yield* WebhookDeliveryStore
      const { delivery_nanoid } = yield* sendTestDelivery(admin, endpoint, { event_type: "payment.sent" })
      const [claimed] = yield* store.claimDue({ now: 0, limit: 1, leaseMillis: 60_000 })
      yield* store.record(delivery_nanoid, claimed?.lease.token ?? (0 as never), {
        attempt: { delivery_nanoid, number: 1, at: 10, duration_ms: 5, status_code: 500, error: "HTTP 500" },
        status: "failed",
        at: 10
      })
      assert.strictEqual((yield* store.findById(delivery_nanoid))?.status, "failed")
      assert.deepStrictEqual(yield* recoverDeliveries(admin, endpoint, new Date(1000).toISOString()), { requeued: 0 })
      assert.deepStrictEqual(yield* recoverDeliveries(admin, endpoint, new Date(0).toISOString()), { requeued: 1 })
      assert.strictEqual((yield* store.findById(delivery_nanoid))?.status, "pending")
      const refused = yield* Effect.flip(recoverDeliveries(employee, endpoint, new Date(0).toISOString()))
      assert.strictEqual(refused._tag, "WebhookNotFound")
    }).pipe(Effect.provide(webhookUseCases))
  )
})
