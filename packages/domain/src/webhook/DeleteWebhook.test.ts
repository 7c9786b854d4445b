import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { webhookUseCases } from "../../test/UseCaseKit.ts"
import { seedEndpoint } from "../../test/WebhookKit.ts"
import { deleteWebhook } from "./DeleteWebhook.ts"
import { WebhookEndpointRepository } from "./WebhookRepository.ts"

describe("deleteWebhook", () => {
  it.effect("deletes the endpoint for its team's admin; an employee cannot, and finds nothing", () =>
    Effect.gen(function* () {
      const { admin, employee, endpoint } = yield* seedEndpoint
      assert.strictEqual((yield* Effect.flip(deleteWebhook(employee, endpoint)))._tag, "WebhookNotFound")
      assert.deepStrictEqual(yield* deleteWebhook(admin, endpoint), { webhook_nanoid: endpoint, deleted: true })
      const gone = yield* Effect.flip(WebhookEndpointRepository.use((e) => e.findById(endpoint)))
      assert.strictEqual(gone._tag, "WebhookNotFound")
      assert.strictEqual((yield* Effect.flip(deleteWebhook(admin, endpoint)))._tag, "WebhookNotFound")
    }).pipe(Effect.provide(webhookUseCases))
  )
})
