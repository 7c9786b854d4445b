/**
 * Webhook endpoints (SPEC §4.1, §4.8; test body of DESIGN §5). The webhook issue owns the handlers.
 */
import { WebhookId } from "@svc/domain/Ids"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { Envelope } from "./Envelope.ts"

/** A webhook endpoint (SPEC §2.1). */
export const WebhookView = Schema.Struct({
  webhook_nanoid: Schema.String,
  company_nanoid: Schema.String,
  team_nanoid: Schema.String,
  url: Schema.String,
  events: Schema.Array(Schema.String),
  is_active: Schema.Boolean,
  name: Schema.String,
  description: Schema.String,
  created_at: Schema.String,
  updated_at: Schema.String
})

/** `POST /v2/webhooks/test/{webhook_nanoid}` body. */
export const WebhookTestBody = Schema.Struct({
  event_type: Schema.String.pipe(
    Schema.check(Schema.isPattern(/^[a-z_]+(\.[a-z_]+)+$/, { message: "Expected an event type" }))
  ),
  version: Schema.optionalKey(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 10 }))))
})

/** The webhook routes; all need a bearer token. */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("get", "/v2/webhooks/:webhook_nanoid", {
      params: { webhook_nanoid: WebhookId },
      success: Envelope(WebhookView),
      error: EndpointErrors
    }),
    HttpApiEndpoint.post("test", "/v2/webhooks/test/:webhook_nanoid", {
      params: { webhook_nanoid: WebhookId },
      payload: WebhookTestBody,
      success: Envelope(
        Schema.Struct({
          delivery_nanoid: Schema.String,
          message: Schema.String,
          test_payload: Schema.Unknown,
          version: Schema.Int
        })
      ),
      error: EndpointErrors
    })
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Webhooks" })) {}
