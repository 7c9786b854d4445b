/** A team's webhook endpoints (SPEC §4.8), for a caller who may manage them. */
import { Effect } from "effect"
import type { TeamId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { webhookEndpointOf } from "./WebhookEndpoint.ts"
import { WebhookEndpointRepository } from "./WebhookRepository.ts"

/** The team's endpoints (`webhooks.manage`). */
export const listWebhooks = Effect.fn("Webhooks.list")(function* (caller: Caller, team: TeamId) {
  yield* TeamAccess.use((access) => access.authorize(caller, team, "webhooks.manage"))
  return { items: (yield* WebhookEndpointRepository.use((e) => e.listByTeam(team))).map(webhookEndpointOf) }
})
