import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { webhookUseCases } from "../../test/UseCaseKit.ts"
import { seedEndpoint } from "../../test/WebhookKit.ts"
import { sendTestDelivery } from "./SendTestDelivery.ts"
import { updateWebhook } from "./UpdateWebhook.ts"
import { WebhookDeliveryStore } from "./WebhookRepository.ts"

describe("sendTestDelivery", () => {
  it.effect("queues a real delivery of a sample payload in the endpoint's version; none to a disabled endpoint", () =>
    Effect.gen(function* () {
      const { admin, endpoint } = yield* seedEndpoint
      const sent = yield* sendTestDelivery(admin, endpoint, { event_type: "payment.sent" })
      const queued = yield* WebhookDeliveryStore.use((d) => d.findById(sent.delivery_nanoid))
      assert.strictEqual(queued?.status, "pending")
      assert.strictEqual(queued?.event.event_type, "payment.sent")
      assert.strictEqual(sent.version, 2)
      assert.strictEqual(sent.test_payload.event_type, "payment.sent")
      assert.strictEqual(sent.test_payload.event_version, "2.0")
      yield* updateWebhook(admin, endpoint, { is_active: false })
      const refused = yield* Effect.flip(sendTestDelivery(admin, endpoint, { event_type: "payment.sent" }))
      assert.strictEqual(refused._tag, "WebhookDisabled")
    }).pipe(Effect.provide(webhookUseCases))
  )
})
