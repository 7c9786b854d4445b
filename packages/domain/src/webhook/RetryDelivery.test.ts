import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { webhookBody, webhookUseCases } from "../../test/UseCaseKit.ts"
import { seedEndpoint } from "../../test/WebhookKit.ts"
import type { WebhookId } from "../Ids.ts"
import { createWebhook } from "./CreateWebhook.ts"
import { retryDelivery } from "./RetryDelivery.ts"
import { sendTestDelivery } from "./SendTestDelivery.ts"
import { WebhookDeliveryStore } from "./WebhookRepository.ts"

describe("retryDelivery", () => {
  it.effect("sends a delivery of the endpoint again now; one of another endpoint is not found", () =>
    Effect.gen(function* () {
      const { team, admin, employee, endpoint } = yield* seedEndpoint
      const { delivery_nanoid } = yield* sendTestDelivery(admin, endpoint, { event_type: "payment.sent" })
      // The delivery fails once, and waits for a later attempt.
      const [claimed] = yield* WebhookDeliveryStore.use((d) => d.claimDue({ now: 0, limit: 1, leaseMillis: 60_000 }))
      const failedAt = 1000
      yield* WebhookDeliveryStore.use((d) =>
        d.record(delivery_nanoid, claimed?.lease.token ?? (0 as never), {
          attempt: { delivery_nanoid, number: 1, at: failedAt, duration_ms: 5, status_code: 500, error: "HTTP 500" },
          status: "pending",
          next_attempt_at: 3_600_000,
          at: failedAt
        })
      )
      yield* TestClock.adjust(2000)
      const retried = yield* retryDelivery(admin, endpoint, delivery_nanoid)
      assert.strictEqual(retried.status, "pending")
      assert.strictEqual(retried.next_attempt_at, new Date(2000).toISOString())
      const other = (yield* createWebhook(admin, webhookBody(team, "https://other.example.com/x"))).webhook_nanoid
      const elsewhere = yield* Effect.flip(retryDelivery(admin, other as WebhookId, delivery_nanoid))
      assert.strictEqual(elsewhere._tag, "DeliveryNotFound")
      assert.strictEqual(
        (yield* Effect.flip(retryDelivery(employee, endpoint, delivery_nanoid)))._tag,
        "WebhookNotFound"
      )
    }).pipe(Effect.provide(webhookUseCases))
  )
})
