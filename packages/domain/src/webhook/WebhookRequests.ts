/**
 * Request and response bodies of the webhook routes (SPEC §4.1, §4.8, and endpoint management of DESIGN §5b).
 */
import { Schema } from "effect"
import { EventTypeSchema, eventTypes } from "../event/EventCatalog.ts"
import { PayloadVersion } from "../event/EventEnvelope.ts"
import { withDefault } from "../FieldDefault.ts"
import { DeliveryId, TeamId, WebhookId } from "../Ids.ts"
import { PlainText } from "../Text.ts"
import { IsoTimestamp } from "../Timestamp.ts"
import { keptResponseBytes } from "./WebhookDelivery.ts"
import { WebhookEndpoint, WebhookUrl } from "./WebhookEndpoint.ts"

const VersionField = withDefault<typeof PayloadVersion>(2)(PayloadVersion)
const Events = Schema.Array(EventTypeSchema).check(
  Schema.isMinLength(1),
  Schema.isMaxLength(eventTypes.length),
  Schema.isUnique()
)
const Name = PlainText({ min: 1, max: 100, what: "an endpoint name" })
const Description = PlainText({ max: 500, what: "a description", multiline: true })

/** Path of the routes on one endpoint: `webhook_nanoid`, 15 characters, `^wh-` (SPEC §4.1, §4.8). */
export const WebhookParams = Schema.Struct({ webhook_nanoid: WebhookId })
export type WebhookParams = typeof WebhookParams.Type

/** Path of the routes on one delivery of an endpoint. */
export const DeliveryParams = Schema.Struct({ webhook_nanoid: WebhookId, delivery_nanoid: DeliveryId })
export type DeliveryParams = typeof DeliveryParams.Type

/**
 * POST /v2/webhooks/test/{webhook_nanoid} body (DESIGN §5): the kind to simulate, and the payload major (by default
 * the endpoint's own, as its real events arrive).
 */
export const WebhookTestRequest = Schema.Struct({
  event_type: EventTypeSchema,
  version: Schema.optionalKey(PayloadVersion)
})
export type WebhookTestRequest = typeof WebhookTestRequest.Type

/** What a test delivery answers (SPEC §4.1). */
export const WebhookTestResult = Schema.Struct({
  delivery_nanoid: Schema.String,
  message: Schema.String,
  test_payload: Schema.Record(Schema.String, Schema.Unknown),
  version: Schema.Int
})
export type WebhookTestResult = typeof WebhookTestResult.Type

/** POST /v2/webhooks/test/{webhook_nanoid} response (SPEC §4.1). */
export const WebhookTestResponse = Schema.Struct({ success: Schema.Literal(true), data: WebhookTestResult })
export type WebhookTestResponse = typeof WebhookTestResponse.Type

/** GET /v2/webhooks/{webhook_nanoid} response (SPEC §4.8). */
export const WebhookResponse = Schema.Struct({ success: Schema.Literal(true), data: WebhookEndpoint })
export type WebhookResponse = typeof WebhookResponse.Type

/** POST /v2/webhooks body: register an endpoint for a team. */
export const CreateWebhookRequest = Schema.Struct({
  team_nanoid: TeamId,
  url: WebhookUrl,
  events: Events,
  name: Name,
  description: withDefault<typeof Description>("")(Description),
  version: VersionField
})
export type CreateWebhookRequest = typeof CreateWebhookRequest.Type

/** The endpoint with its signing secret: what creation answers, the only time the secret is shown. */
export const CreatedWebhook = Schema.Struct({ ...WebhookEndpoint.fields, secret: Schema.String })
export type CreatedWebhook = typeof CreatedWebhook.Type

/** PUT /v2/webhooks/{webhook_nanoid} body: any of url, events, name, description, version, is_active. */
export const UpdateWebhookRequest = Schema.Struct({
  url: Schema.optionalKey(WebhookUrl),
  events: Schema.optionalKey(Events),
  name: Schema.optionalKey(Name),
  description: Schema.optionalKey(Description),
  version: Schema.optionalKey(PayloadVersion),
  is_active: Schema.optionalKey(Schema.Boolean)
})
export type UpdateWebhookRequest = typeof UpdateWebhookRequest.Type

/** GET /v2/webhooks query: the team whose endpoints to list. */
export const ListWebhooksQuery = Schema.Struct({ team_nanoid: TeamId })
export type ListWebhooksQuery = typeof ListWebhooksQuery.Type

/** Where a delivery stands, as the log shows it. */
export const DeliveryStatusSchema = Schema.Literals(["pending", "succeeded", "failed"])

/** The page sizes of the delivery log: 1 to 100, default 20. */
export const deliveryPageRange = { minimum: 1, maximum: 100, default: 20 } as const

/** A page size of the delivery log, as the query carries it. */
export const DeliveryPageSize = Schema.NumberFromString.pipe(
  Schema.decodeTo(
    Schema.Int.pipe(
      Schema.check(Schema.isBetween({ minimum: deliveryPageRange.minimum, maximum: deliveryPageRange.maximum }))
    )
  )
)

/** GET /v2/webhooks/{webhook_nanoid}/deliveries query. */
export const DeliveriesQuery = Schema.Struct({
  status: Schema.optional(DeliveryStatusSchema),
  cursor: Schema.optional(Schema.String.pipe(Schema.check(Schema.isMaxLength(200)))),
  limit: Schema.optional(DeliveryPageSize)
})
export type DeliveriesQuery = typeof DeliveriesQuery.Type

/** One attempt as the log shows it. */
export const DeliveryAttemptView = Schema.Struct({
  at: IsoTimestamp,
  status_code: Schema.NullOr(Schema.Int),
  duration_ms: Schema.Int,
  error: Schema.NullOr(Schema.String),
  response_body: Schema.NullOr(Schema.String).pipe(
    Schema.annotate({
      description: `The start of the receiver's answer as text, as it sent it: its first ${keptResponseBytes} bytes read as UTF-8 (bytes that are not UTF-8 replaced by U+FFFD); \`""\` for an empty body, \`null\` when there was no response`
    })
  ),
  response_body_truncated: Schema.Boolean.pipe(
    Schema.annotate({
      description: `Whether \`response_body\` is less than the receiver's body: the body was longer than ${keptResponseBytes} bytes, or its connection closed before its end`
    })
  )
})
export type DeliveryAttemptView = typeof DeliveryAttemptView.Type

/** One delivery as the log shows it (DESIGN §5b). */
export const DeliveryView = Schema.Struct({
  delivery_nanoid: Schema.String,
  event_nanoid: Schema.String,
  event_type: EventTypeSchema,
  status: DeliveryStatusSchema,
  attempts: Schema.Array(DeliveryAttemptView),
  next_attempt_at: Schema.NullOr(IsoTimestamp),
  created_at: IsoTimestamp
})
export type DeliveryView = typeof DeliveryView.Type

/** A page of the delivery log, newest first; `next_cursor` continues it (`null` at the end). */
export const DeliveryPage = Schema.Struct({
  items: Schema.Array(DeliveryView),
  next_cursor: Schema.NullOr(Schema.String)
})
export type DeliveryPage = typeof DeliveryPage.Type

/** POST /v2/webhooks/{webhook_nanoid}/recover body: re-queue every failed delivery created since then. */
export const RecoverRequest = Schema.Struct({ since: IsoTimestamp })
export type RecoverRequest = typeof RecoverRequest.Type
