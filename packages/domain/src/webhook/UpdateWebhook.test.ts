import { assert, describe, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { webhookUseCases } from "../../test/UseCaseKit.ts"
import { seedEndpoint } from "../../test/WebhookKit.ts"
import { updateWebhook } from "./UpdateWebhook.ts"
import { WebhookEndpointRepository } from "./WebhookRepository.ts"
import { UpdateWebhookRequest } from "./WebhookRequests.ts"

const update = Schema.decodeUnknownSync(UpdateWebhookRequest)

describe("updateWebhook", () => {
  it.effect("changes the fields and the URL (normalised); disables and enables the endpoint", () =>
    Effect.gen(function* () {
      const { admin, endpoint } = yield* seedEndpoint
      const renamed = yield* updateWebhook(
        admin,
        endpoint,
        update({ name: "Ledger", url: "https://NEW.example.com/x" })
      )
      assert.strictEqual(renamed.name, "Ledger")
      assert.strictEqual(renamed.url, "https://new.example.com/x")
      const off = yield* updateWebhook(admin, endpoint, update({ is_active: false }))
      assert.isFalse(off.is_active)
      const stored = yield* WebhookEndpointRepository.use((e) => e.findById(endpoint))
      assert.strictEqual(stored.state, "disabled")
      assert.isDefined(stored.disabled_at)
      assert.isTrue((yield* updateWebhook(admin, endpoint, update({ is_active: true }))).is_active)
    }).pipe(Effect.provide(webhookUseCases))
  )

  it.effect("refuses a URL the rules refuse and an employee, changing nothing", () =>
    Effect.gen(function* () {
      const { admin, employee, endpoint } = yield* seedEndpoint
      const before = yield* WebhookEndpointRepository.use((e) => e.findById(endpoint))
      const plain = yield* Effect.flip(updateWebhook(admin, endpoint, update({ url: "http://hooks.example.com/x" })))
      assert.strictEqual(plain._tag, "InvalidWebhookUrl")
      const refused = yield* Effect.flip(updateWebhook(employee, endpoint, update({ name: "Mine" })))
      assert.strictEqual(refused._tag, "WebhookNotFound")
      assert.deepStrictEqual(yield* WebhookEndpointRepository.use((e) => e.findById(endpoint)), before)
    }).pipe(Effect.provide(webhookUseCases))
  )
})
