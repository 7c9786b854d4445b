/** A team with one webhook endpoint, made by its admin, for the webhook use-case tests. */
import { Effect } from "effect"
import type { WebhookId } from "../src/Ids.ts"
import { createWebhook } from "../src/webhook/CreateWebhook.ts"
import { seedTeam, webhookBody } from "./UseCaseKit.ts"

/** The seeded team (`seedTeam`) and its admin's endpoint. */
export const seedEndpoint = Effect.gen(function* () {
  const seeded = yield* seedTeam
  const created = yield* createWebhook(seeded.admin, webhookBody(seeded.team))
  return { ...seeded, endpoint: created.webhook_nanoid as WebhookId, secret: created.secret }
})
