/**
 * The server side of the HTTP adapter: handlers, authentication, the error envelope and idempotency middleware.
 * Clients import `@svc/adapters/http` only.
 */

export { AuthenticationLive } from "./AuthenticationLive.ts"
export { AuthHandlers, type AuthRequirements } from "./AuthHandlers.ts"
export {
  errorResponse,
  maxBodyBytes,
  RequestId,
  requestIdHeader,
  withErrorEnvelope,
  withRequestId
} from "./ErrorEnvelope.ts"
export { idempotencyKeyHeader, withIdempotency } from "./Idempotency.ts"
export { executePayments, recipientsOf, tokenInfo } from "./PaymentExecution.ts"
export { BalanceHandlers, PaymentHandlers } from "./PaymentHandlers.ts"
export {
  PendingBalanceHandlers,
  PendingInviteHandlers,
  PendingPaymentHandlers,
  PendingWebhookHandlers
} from "./PendingHandlers.ts"
export { ServerConfig } from "./ServerConfig.ts"
export { SystemHandlers } from "./SystemHandlers.ts"
export { authorize } from "./TeamAccess.ts"
export { TeamBalances } from "./TeamBalances.ts"
export { TeamHandlers } from "./TeamHandlers.ts"
