/**
 * What every webhook use case shares: who may manage a team's endpoints, and which URLs an endpoint may have.
 */
import { Effect, Schema } from "effect"
import { type ErrorCode, messageField } from "../errors/ErrorCatalog.ts"
import type { WebhookId } from "../Ids.ts"
import type { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { Randomness } from "../Randomness.ts"
import type { TeamNotFound } from "../team/TeamNotFound.ts"
import type { Caller } from "../user/Caller.ts"
import type { WebhookSecret } from "./WebhookEndpoint.ts"
import { WebhookEndpointRepository, WebhookNotFound } from "./WebhookRepository.ts"
import { InvalidWebhookUrl, normalizedWebhookUrl, WebhookUrlPolicy } from "./WebhookUrlPolicy.ts"

/** Why a team-scoped webhook action is refused. */
export type WebhookTeamError = TeamNotFound | InsufficientPermissions

/** The endpoint is disabled: it receives nothing, test deliveries included, until enabled again. */
export class WebhookDisabled extends Schema.TaggedError<WebhookDisabled>()("WebhookDisabled", {
  message: messageField("WEBHOOK_DISABLED")
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "WEBHOOK_DISABLED"
  }
}

/** The delivery log cursor does not name a place in the log. */
export class InvalidCursor extends Schema.TaggedError<InvalidCursor>()("InvalidCursor", {
  message: messageField("VALIDATION_ERROR")
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "VALIDATION_ERROR"
  }
}

/**
 * The endpoint, when the caller may manage its team's webhooks (`webhooks.manage`); `WebhookNotFound` otherwise, so
 * a route that names an endpoint reveals nothing of it to anyone else.
 */
export const manageableEndpoint = Effect.fn("Webhooks.endpointFor")(function* (caller: Caller, id: WebhookId) {
  const endpoint = yield* WebhookEndpointRepository.use((endpoints) => endpoints.findById(id))
  yield* TeamAccess.use((access) => access.authorize(caller, endpoint.team_nanoid, "webhooks.manage")).pipe(
    Effect.mapError(() => new WebhookNotFound({ nanoid: id }))
  )
  return endpoint
})

/** The URL to store: parsed and normalised, or refused (`normalizedWebhookUrl`). */
export const checkedUrl = (url: string) =>
  WebhookUrlPolicy.use((rules) => {
    const checked = normalizedWebhookUrl(url, rules)
    return "url" in checked
      ? Effect.succeed(checked.url)
      : Effect.fail(new InvalidWebhookUrl({ message: checked.refusal }))
  })

/** A new signing secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks). */
export const makeWebhookSecret: Effect.Effect<WebhookSecret, never, Randomness> = Randomness.use((r) =>
  Effect.map(r.bytes(32), (bytes) => `whsec_${btoa(String.fromCharCode(...bytes))}`)
)
