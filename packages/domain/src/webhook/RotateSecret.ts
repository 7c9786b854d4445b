/** Rotating a webhook endpoint's signing secret (DESIGN §5b): the previous one keeps signing beside it for 24 h. */
import { Clock, Effect } from "effect"
import type { WebhookId } from "../Ids.ts"
import { isoOf } from "../Timestamp.ts"
import type { Caller } from "../user/Caller.ts"
import { makeWebhookSecret, manageableEndpoint } from "./WebhookAccess.ts"
import { rotationGraceMillis } from "./WebhookEndpoint.ts"
import { WebhookEndpointRepository } from "./WebhookRepository.ts"
import { WebhookSecretBox } from "./WebhookSender.ts"

/** A new secret, shown this once; the current one signs until `previous_expires_at`, older ones to their own end. */
export const rotateSecret = Effect.fn("Webhooks.rotateSecret")(function* (caller: Caller, id: WebhookId) {
  const endpoint = yield* manageableEndpoint(caller, id)
  const at = yield* Clock.currentTimeMillis
  const secret = yield* makeWebhookSecret
  const previous_expires_at = isoOf(at + rotationGraceMillis)
  const [current, ...older] = endpoint.secrets
  const kept = older.filter((s) => s.expires_at !== undefined && Date.parse(s.expires_at) > at)
  const sealed = yield* WebhookSecretBox.use((box) => box.seal(secret))
  yield* WebhookEndpointRepository.use((endpoints) =>
    endpoints.update(id, {
      secrets: [{ sealed }, { sealed: current.sealed, expires_at: previous_expires_at }, ...kept],
      updated_at: isoOf(at)
    })
  )
  return { secret, previous_expires_at }
})
