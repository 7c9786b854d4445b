/**
 * Webhook endpoints (SPEC §4.1, §4.8; endpoint management, the delivery log and replay of DESIGN §5b), on the
 * domain's schemas. Every route needs a bearer token and the `webhooks.manage` permission on the endpoint's team.
 */
import { WebhookId } from "@svc/domain/Ids"
import {
  CreatedWebhook,
  CreateWebhookRequest,
  DeliveriesQuery,
  DeliveryPage,
  DeliveryParams,
  DeliveryView,
  deliveryPageRange,
  ListWebhooksQuery,
  RecoverRequest,
  UpdateWebhookRequest,
  WebhookEndpoint,
  WebhookResponse,
  WebhookTestRequest,
  WebhookTestResponse
} from "@svc/domain/webhook"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { Envelope } from "./Envelope.ts"
import { answers, integerQuery } from "./OperationDocs.ts"

const webhookPath = { webhook_nanoid: WebhookId }

/** The webhook routes. */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.post("create", "/v2/webhooks", {
      payload: CreateWebhookRequest,
      // `secret` is absent only on an idempotent replay: kept answers hold no secret.
      success: Envelope(Schema.Struct({ ...CreatedWebhook.fields, secret: Schema.optionalKey(Schema.String) })),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Register a webhook endpoint")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "INVALID_WEBHOOK_URL", "INVALID_EVENT_TYPE"]))
      .annotate(
        OpenApi.Description,
        "Registers an endpoint; `data.secret` is shown only here and on rotation. A replay of the same request with its `Idempotency-Key` (`idempotent-replayed: true`) answers without it: the service keeps no copy."
      ),
    HttpApiEndpoint.get("list", "/v2/webhooks", {
      query: ListWebhooksQuery,
      success: Envelope(Schema.Struct({ items: Schema.Array(WebhookEndpoint) })),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "List webhook endpoints")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"])),
    HttpApiEndpoint.get("get", "/v2/webhooks/:webhook_nanoid", {
      params: webhookPath,
      success: WebhookResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Get a webhook endpoint")
      .pipe(answers(["WEBHOOK_NOT_FOUND"])),
    HttpApiEndpoint.put("update", "/v2/webhooks/:webhook_nanoid", {
      params: webhookPath,
      payload: UpdateWebhookRequest,
      success: Envelope(WebhookEndpoint),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Update a webhook endpoint")
      .pipe(answers(["WEBHOOK_NOT_FOUND", "INVALID_WEBHOOK_URL", "INVALID_EVENT_TYPE"]))
      .annotate(OpenApi.Description, "Changes an endpoint; enabling it re-queues what failed while it was off."),
    HttpApiEndpoint.delete("delete", "/v2/webhooks/:webhook_nanoid", {
      params: webhookPath,
      success: Envelope(Schema.Struct({ webhook_nanoid: Schema.String, deleted: Schema.Boolean })),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Delete a webhook endpoint")
      .pipe(answers(["WEBHOOK_NOT_FOUND"])),
    HttpApiEndpoint.post("rotateSecret", "/v2/webhooks/:webhook_nanoid/rotate_secret", {
      params: webhookPath,
      success: Envelope(
        Schema.Struct({ secret: Schema.optionalKey(Schema.String), previous_expires_at: Schema.String })
      ),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Rotate the signing secret")
      .pipe(answers(["WEBHOOK_NOT_FOUND"]))
      .annotate(
        OpenApi.Description,
        "A new secret; the previous one keeps signing beside it for 24 h. An idempotent replay answers without `secret`."
      ),
    HttpApiEndpoint.get("deliveries", "/v2/webhooks/:webhook_nanoid/deliveries", {
      params: webhookPath,
      query: DeliveriesQuery,
      success: Envelope(DeliveryPage),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "List deliveries")
      .pipe(answers(["WEBHOOK_NOT_FOUND"]))
      .pipe(integerQuery({ limit: deliveryPageRange }))
      .annotate(OpenApi.Description, "The delivery log with every attempt, newest first."),
    HttpApiEndpoint.post("retry", "/v2/webhooks/:webhook_nanoid/deliveries/:delivery_nanoid/retry", {
      params: DeliveryParams.fields,
      success: Envelope(DeliveryView),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Send a delivery again")
      .pipe(answers(["WEBHOOK_NOT_FOUND", "NOT_FOUND"]))
      .annotate(OpenApi.Description, "Sends one delivery again now."),
    HttpApiEndpoint.post("recover", "/v2/webhooks/:webhook_nanoid/recover", {
      params: webhookPath,
      payload: RecoverRequest,
      success: Envelope(Schema.Struct({ requeued: Schema.Int })),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Re-queue failed deliveries")
      .pipe(answers(["WEBHOOK_NOT_FOUND"]))
      .annotate(OpenApi.Description, "Re-queues every failed delivery created since `since`."),
    HttpApiEndpoint.post("test", "/v2/webhooks/test/:webhook_nanoid", {
      params: webhookPath,
      payload: WebhookTestRequest,
      success: WebhookTestResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Send a test delivery")
      .pipe(answers(["WEBHOOK_NOT_FOUND", "WEBHOOK_DISABLED", "INVALID_EVENT_TYPE"]))
      .annotate(OpenApi.Description, "A real delivery of a sample payload of the kind and payload major asked for.")
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Webhooks",
      description: "Endpoints that receive the team's events, signed (Standard Webhooks), with their delivery log."
    })
  ) {}
