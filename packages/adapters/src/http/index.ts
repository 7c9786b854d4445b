/**
 * The HTTP adapter: the HttpApi contract shared by the server and the typed client.
 */
export { AccessTokens, type TokenClaims, TokenRefused, tokenLifetimeSeconds } from "./AccessTokens.ts"
export { Api } from "./Api.ts"
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
  Unauthorized,
  Unprocessable
} from "./ApiError.ts"
export { AuthApi, VerifyBody } from "./AuthApi.ts"
export { Authentication, CurrentUser } from "./Authentication.ts"
export { BalanceApi, BalanceView } from "./BalanceApi.ts"
export { DataOnly, Envelope } from "./Envelope.ts"
export { IdempotencyStore } from "./IdempotencyStore.ts"
export {
  CreateInvitesBody,
  CreateManagerInvitesBody,
  ExecuteManagerInvitesBody,
  InvitesApi,
  InviteView
} from "./InvitesApi.ts"
export {
  CreatePaymentsBody,
  ExecutePaymentsBody,
  InstantPaymentBody,
  PaymentLine,
  PaymentsApi,
  PaymentsQuery,
  SignedTypedData,
  TypedDataBundle
} from "./PaymentsApi.ts"
export { SystemApi } from "./SystemApi.ts"
export { TeamsApi, TeamUsersQuery } from "./TeamsApi.ts"
export { WebhooksApi, WebhookTestBody, WebhookView } from "./WebhooksApi.ts"
