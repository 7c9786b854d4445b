import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { webhookBody as body, seedTeam, webhookUseCases } from "../../test/UseCaseKit.ts"
import type { WebhookId } from "../Ids.ts"
import { createWebhook } from "./CreateWebhook.ts"
import { WebhookEndpointRepository } from "./WebhookRepository.ts"
import { WebhookSecretBox } from "./WebhookSender.ts"

describe("createWebhook", () => {
  it.effect("registers an active endpoint with its URL normalised and a secret shown once, stored sealed", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      const created = yield* createWebhook(admin, body(team, "HTTPS://Hooks.Example.COM/svc"))
      assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/)
      assert.strictEqual(created.url, "https://hooks.example.com/svc")
      const stored = yield* WebhookEndpointRepository.use((e) => e.findById(created.webhook_nanoid as WebhookId))
      assert.strictEqual(stored.state, "active")
      assert.notInclude(JSON.stringify(stored), created.secret)
      assert.strictEqual(yield* WebhookSecretBox.use((box) => box.open(stored.secrets[0].sealed)), created.secret)
    }).pipe(Effect.provide(webhookUseCases))
  )

  it.effect("refuses an employee, an outsider and a URL the rules refuse, storing nothing", () =>
    Effect.gen(function* () {
      const { team, employee, outsider, admin } = yield* seedTeam
      const refused = yield* Effect.flip(createWebhook(employee, body(team)))
      assert.strictEqual(refused._tag, "InsufficientPermissions")
      assert.strictEqual((yield* Effect.flip(createWebhook(outsider, body(team))))._tag, "InsufficientPermissions")
      const plain = yield* Effect.flip(createWebhook(admin, body(team, "http://hooks.example.com/svc")))
      assert.strictEqual(plain._tag, "InvalidWebhookUrl")
      assert.deepStrictEqual(yield* WebhookEndpointRepository.use((e) => e.listByTeam(team)), [])
    }).pipe(Effect.provide(webhookUseCases))
  )
})
