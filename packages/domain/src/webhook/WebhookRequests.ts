/**
 * Request and response bodies of the webhook routes (SPEC §4.1, §4.8, and endpoint management of DESIGN §1).
 */
import { Schema } from "effect"
import { EventTypeSchema } from "../event/EventCatalog.ts"
import { PayloadVersion } from "../event/EventEnvelope.ts"
import { withDefault } from "../FieldDefault.ts"
import { TeamId } from "../Ids.ts"
import { WebhookEndpoint, WebhookUrl } from "./WebhookEndpoint.ts"

const VersionField = withDefault<typeof PayloadVersion>(2)(PayloadVersion)
const Events = Schema.Array(EventTypeSchema).check(Schema.isMinLength(1), Schema.isUnique())

/** POST /v2/webhooks/test/{webhook_nanoid} body (DESIGN §5): the kind to simulate, and the payload major. */
export const WebhookTestRequest = Schema.Struct({ event_type: EventTypeSchema, version: VersionField })
export type WebhookTestRequest = typeof WebhookTestRequest.Type

/** POST /v2/webhooks/test/{webhook_nanoid} response (SPEC §4.1). */
export const WebhookTestResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    delivery_nanoid: Schema.String,
    message: Schema.String,
    test_payload: Schema.Record(Schema.String, Schema.Unknown),
    version: Schema.Int
  })
})
export type WebhookTestResponse = typeof WebhookTestResponse.Type

/** GET /v2/webhooks/{webhook_nanoid} response (SPEC §4.8). */
export const WebhookResponse = Schema.Struct({ success: Schema.Literal(true), data: WebhookEndpoint })
export type WebhookResponse = typeof WebhookResponse.Type

/** POST /v2/webhooks body: register an endpoint for a team. */
export const CreateWebhookRequest = Schema.Struct({
  team_nanoid: TeamId,
  url: WebhookUrl,
  events: Events,
  name: Schema.String.pipe(Schema.check(Schema.isMinLength(1), Schema.isMaxLength(100))),
  description: withDefault<typeof Schema.String>("")(Schema.String),
  version: VersionField
})
export type CreateWebhookRequest = typeof CreateWebhookRequest.Type

/** POST /v2/webhooks response: the endpoint, and its signing secret, shown this once. */
export const CreateWebhookResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ ...WebhookEndpoint.fields, secret: Schema.String })
})
export type CreateWebhookResponse = typeof CreateWebhookResponse.Type

/** PATCH /v2/webhooks/{webhook_nanoid} body: any of url, events, name, description, active. */
export const UpdateWebhookRequest = Schema.Struct({
  url: Schema.optionalKey(WebhookUrl),
  events: Schema.optionalKey(Events),
  name: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  is_active: Schema.optionalKey(Schema.Boolean)
})
export type UpdateWebhookRequest = typeof UpdateWebhookRequest.Type
