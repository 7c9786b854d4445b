/** Registering a webhook endpoint for a team (SPEC §4.8): the answer carries its signing secret, shown this once. */
import { Clock, Effect } from "effect"
import { IdGenerator } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { isoOf } from "../Timestamp.ts"
import type { Caller } from "../user/Caller.ts"
import { checkedUrl, makeWebhookSecret } from "./WebhookAccess.ts"
import { type WebhookEndpointRecord, webhookEndpointOf } from "./WebhookEndpoint.ts"
import { WebhookEndpointRepository } from "./WebhookRepository.ts"
import type { CreatedWebhook, CreateWebhookRequest } from "./WebhookRequests.ts"
import { WebhookSecretBox } from "./WebhookSender.ts"

/** Registers an endpoint for the caller's team (`webhooks.manage`), active, with a new sealed secret. */
export const createWebhook = Effect.fn("Webhooks.create")(function* (caller: Caller, body: CreateWebhookRequest) {
  const { team } = yield* TeamAccess.use((access) => access.authorize(caller, body.team_nanoid, "webhooks.manage"))
  const url = yield* checkedUrl(body.url)
  const secret = yield* makeWebhookSecret
  const at = isoOf(yield* Clock.currentTimeMillis)
  const record: WebhookEndpointRecord = {
    nanoid: yield* IdGenerator.use((ids) => ids.make("webhook")),
    company_nanoid: team.company_nanoid,
    team_nanoid: team.nanoid,
    url,
    events: body.events,
    state: "active",
    name: body.name,
    description: body.description,
    version: body.version,
    secrets: [{ sealed: yield* WebhookSecretBox.use((box) => box.seal(secret)) }],
    created_at: at,
    updated_at: at
  }
  yield* WebhookEndpointRepository.use((endpoints) => endpoints.insert(record))
  return { ...webhookEndpointOf(record), secret } satisfies CreatedWebhook
})
