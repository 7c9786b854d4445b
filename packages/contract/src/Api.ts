/**
 * The svc HTTP contract: every group of the v2 API. Served by `apps/api`, and the source of the typed client.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { apiGuide, apiGuideFor } from "./ApiGuide.ts"
import { AuthApi } from "./AuthApi.ts"
import { BalanceApi } from "./BalanceApi.ts"
import { DepositsApi } from "./DepositsApi.ts"
import { InvitesApi } from "./InvitesApi.ts"
import { InvoicesApi } from "./InvoicesApi.ts"
import { finishDocument } from "./OpenApiDocument.ts"
import { PaymentsApi } from "./PaymentsApi.ts"
import { PayoutAddressesApi, PayoutReportsApi } from "./PayoutAddressesApi.ts"
import { PaySchedulesApi } from "./PaySchedulesApi.ts"
import { SystemApi } from "./SystemApi.ts"
import { TeamsApi } from "./TeamsApi.ts"
import { WebhooksApi } from "./WebhooksApi.ts"

/**
 * The whole API, annotated for OpenAPI 3.1. Bodies and queries reject unknown fields. Success bodies are built by the
 * domain from values it decoded, so the server does not check them again on the way out (a sixth of the time of a
 * 100-user list); the typed client still checks what it receives (`ApiClient.ts`).
 */
export class Api extends HttpApi.make("svc")
  .add(SystemApi)
  .add(AuthApi)
  .add(TeamsApi)
  .add(PaymentsApi)
  .add(PaySchedulesApi)
  .add(InvitesApi)
  .add(InvoicesApi)
  .add(WebhooksApi)
  .add(BalanceApi)
  .add(DepositsApi)
  .add(PayoutAddressesApi)
  .add(PayoutReportsApi)
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error" })
  .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "error" })
  .annotate(HttpApi.SuccessParseOptions, { disableChecks: true })
  .annotateMerge(
    OpenApi.annotations({
      title: "svc team payments API",
      version: "2.0.0",
      description: apiGuide,
      license: { name: "MIT", identifier: "MIT" },
      transform: finishDocument
    })
  ) {}

/** The contract as a server at `base` documents it: its address in `servers` and in the guide's examples. */
export const servedApi = (base: string) =>
  Api.annotateMerge(OpenApi.annotations({ description: apiGuideFor(base), servers: [{ url: base }] }))
