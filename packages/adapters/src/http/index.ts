/**
 * The HTTP adapter: the HttpApi contract shared by the server and the typed client.
 */
export { AccessTokens, type TokenClaims, TokenRefused, tokenLifetimeSeconds } from "./AccessTokens.ts"
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
  Unauthorized,
  Unprocessable
} from "./ApiError.ts"
export { AuthApi } from "./AuthApi.ts"
export { Authentication, CurrentUser } from "./Authentication.ts"
export { BalanceApi } from "./BalanceApi.ts"
export { DataOnly, Envelope } from "./Envelope.ts"
export { InvitesApi } from "./InvitesApi.ts"
export { PaymentsApi } from "./PaymentsApi.ts"
export { NotReady, ReadinessChecks, SystemApi } from "./SystemApi.ts"
export { TeamsApi, TeamUsersQuery } from "./TeamsApi.ts"
export { WebhooksApi } from "./WebhooksApi.ts"
