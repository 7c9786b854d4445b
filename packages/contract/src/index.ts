/**
 * The svc v2 HTTP contract (DESIGN §3): the HttpApi the server implements and clients are derived from, on the
 * domain's schemas. It depends on the domain and `effect` only.
 */
export { Api, servedApi } from "./Api.ts"
export { type ApiClient, makeApiClient } from "./ApiClient.ts"
export {
  type ApiError,
  apiError,
  BadRequest,
  Conflict,
  EndpointErrors,
  Forbidden,
  Gone,
  NotFound,
  NotImplemented,
  statusOfApiError,
  toApiError,
  Unauthorized,
  Unprocessable
} from "./ApiError.ts"
export { AuthApi } from "./AuthApi.ts"
export { Authentication, CurrentUser } from "./Authentication.ts"
export { BalanceApi } from "./BalanceApi.ts"
export { DepositsApi } from "./DepositsApi.ts"
export { DataOnly, Envelope } from "./Envelope.ts"
export { InvitesApi } from "./InvitesApi.ts"
export { InvoicePdf, InvoicesApi } from "./InvoicesApi.ts"
export { PaymentsApi } from "./PaymentsApi.ts"
export { PayoutAddressesApi, PayoutReportsApi } from "./PayoutAddressesApi.ts"
export { PaySchedulesApi } from "./PaySchedulesApi.ts"
export { NotReady, ReadinessChecks, SystemApi } from "./SystemApi.ts"
export { TeamsApi, TeamUsersQuery } from "./TeamsApi.ts"
export { WebhooksApi } from "./WebhooksApi.ts"
