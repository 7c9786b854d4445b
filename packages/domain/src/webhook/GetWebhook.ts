/** One webhook endpoint (SPEC §4.8), for a caller who may manage its team's webhooks. */
import { Effect } from "effect"
import type { WebhookId } from "../Ids.ts"
import type { Caller } from "../user/Caller.ts"
import { manageableEndpoint } from "./WebhookAccess.ts"
import { webhookEndpointOf } from "./WebhookEndpoint.ts"

/** The endpoint; `WebhookNotFound` to anyone who may not manage its team's webhooks. */
export const getWebhook = Effect.fn("Webhooks.get")(function* (caller: Caller, id: WebhookId) {
  return webhookEndpointOf(yield* manageableEndpoint(caller, id))
})
