import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { webhookUseCases } from "../../test/UseCaseKit.ts"
import { seedEndpoint } from "../../test/WebhookKit.ts"
import { getWebhook } from "./GetWebhook.ts"

describe("getWebhook", () => {
  it.effect("shows the endpoint to its team's admin, without its secret; to anyone else it is not found", () =>
    Effect.gen(function* () {
      const { admin, employee, outsider, endpoint, secret } = yield* seedEndpoint
      const shown = yield* getWebhook(admin, endpoint)
      assert.strictEqual(shown.webhook_nanoid, endpoint)
      assert.notInclude(JSON.stringify(shown), secret)
      for (const caller of [employee, outsider])
        assert.strictEqual((yield* Effect.flip(getWebhook(caller, endpoint)))._tag, "WebhookNotFound")
    }).pipe(Effect.provide(webhookUseCases))
  )
})
