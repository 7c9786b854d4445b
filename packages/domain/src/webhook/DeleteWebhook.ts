/** Deleting a webhook endpoint (SPEC §4.8): it receives nothing more. */
import { Effect } from "effect"
import type { WebhookId } from "../Ids.ts"
import type { Caller } from "../user/Caller.ts"
import { manageableEndpoint } from "./WebhookAccess.ts"
import { WebhookEndpointRepository } from "./WebhookRepository.ts"

/** Deletes the endpoint, for a caller who may manage its team's webhooks. */
export const deleteWebhook = Effect.fn("Webhooks.delete")(function* (caller: Caller, id: WebhookId) {
  yield* manageableEndpoint(caller, id)
  yield* WebhookEndpointRepository.use((endpoints) => endpoints.delete(id))
  return { webhook_nanoid: id, deleted: true as const }
})
