/**
 * Webhook endpoints (SPEC §4.1, §4.8; test body of DESIGN §5), on the domain's schemas. The webhook issue owns the
 * handlers (and adds endpoint management).
 */
import { WebhookId } from "@svc/domain/Ids"
import { WebhookResponse, WebhookTestRequest, WebhookTestResponse } from "@svc/domain/webhook"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"

/** The webhook routes; all need a bearer token. */
export class WebhooksApi extends HttpApiGroup.make("webhooks")
  .add(
    HttpApiEndpoint.get("get", "/v2/webhooks/:webhook_nanoid", {
      params: { webhook_nanoid: WebhookId },
      success: WebhookResponse,
      error: EndpointErrors
    }),
    HttpApiEndpoint.post("test", "/v2/webhooks/test/:webhook_nanoid", {
      params: { webhook_nanoid: WebhookId },
      payload: WebhookTestRequest,
      success: WebhookTestResponse,
      error: EndpointErrors
    })
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Webhooks" })) {}
