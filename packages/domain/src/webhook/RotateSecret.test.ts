import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { TestClock } from "effect/testing"
import { webhookUseCases } from "../../test/UseCaseKit.ts"
import { seedEndpoint } from "../../test/WebhookKit.ts"
import { rotateSecret } from "./RotateSecret.ts"
import { liveSecrets, rotationGraceMillis } from "./WebhookEndpoint.ts"
import { WebhookEndpointRepository } from "./WebhookRepository.ts"
import { WebhookSecretBox } from "./WebhookSender.ts"

/** The secrets that sign for the endpoint now, opened. */
const signing = (endpoint: Parameters<typeof rotateSecret>[1]) =>
  Effect.gen(function* () {
    const record = yield* WebhookEndpointRepository.use((e) => e.findById(endpoint))
    const now = yield* Clock.currentTimeMillis
    return yield* Effect.forEach(liveSecrets(record, now), (s) => WebhookSecretBox.use((box) => box.open(s.sealed)))
  })

describe("rotateSecret", () => {
  it.effect("a new secret signs at once, the previous one beside it for 24 h, then alone", () =>
    Effect.gen(function* () {
      const { admin, endpoint, secret } = yield* seedEndpoint
      const rotated = yield* rotateSecret(admin, endpoint)
      assert.notStrictEqual(rotated.secret, secret)
      assert.strictEqual(Date.parse(rotated.previous_expires_at), rotationGraceMillis)
      assert.deepStrictEqual(yield* signing(endpoint), [rotated.secret, secret])
      yield* TestClock.adjust(rotationGraceMillis + 1)
      assert.deepStrictEqual(yield* signing(endpoint), [rotated.secret])
      // A second rotation keeps only the secret it replaces: the first has expired.
      const again = yield* rotateSecret(admin, endpoint)
      const record = yield* WebhookEndpointRepository.use((e) => e.findById(endpoint))
      assert.strictEqual(record.secrets.length, 2)
      assert.deepStrictEqual(yield* signing(endpoint), [again.secret, rotated.secret])
    }).pipe(Effect.provide(webhookUseCases))
  )

  it.effect("an employee cannot rotate, and the secret stays", () =>
    Effect.gen(function* () {
      const { employee, endpoint, secret } = yield* seedEndpoint
      assert.strictEqual((yield* Effect.flip(rotateSecret(employee, endpoint)))._tag, "WebhookNotFound")
      assert.deepStrictEqual(yield* signing(endpoint), [secret])
    }).pipe(Effect.provide(webhookUseCases))
  )
})
