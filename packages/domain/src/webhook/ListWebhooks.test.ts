import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { webhookUseCases } from "../../test/UseCaseKit.ts"
import { seedEndpoint } from "../../test/WebhookKit.ts"
import { listWebhooks } from "./ListWebhooks.ts"

describe("listWebhooks", () => {
  it.effect("lists the team's endpoints to its admin; refuses an employee and an outsider", () =>
    Effect.gen(function* () {
      const { team, admin, employee, outsider, endpoint } = yield* seedEndpoint
      assert.deepStrictEqual(
        (yield* listWebhooks(admin, team)).items.map((e) => e.webhook_nanoid),
        [endpoint]
      )
      for (const caller of [employee, outsider])
        assert.strictEqual((yield* Effect.flip(listWebhooks(caller, team)))._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(webhookUseCases))
  )
})
