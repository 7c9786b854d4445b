/**
 * The server side of the HTTP adapter: handlers over the domain's use cases, authentication, the error envelope and
 * idempotency middleware. Only the API's composition root imports it (scripts/dependency-rule.ts); clients import
 * `@svc/adapters/http`.
 */

export { InProcessRequest } from "@svc/v1"
export { AccessLog, logAnswer, probePaths } from "./AccessLog.ts"
export { type MethodsOf, methodsOf, withAllowedMethods } from "./AllowedMethods.ts"
export { AuthenticationLive, callerOfToken } from "./AuthenticationLive.ts"
export { AuthHandlers, type AuthRequirements } from "./AuthHandlers.ts"
export { codingFor, withCompressedPages } from "./CompressedPages.ts"
export {
  ConsoleRoute,
  consoleAnswer,
  consoleContentSecurityPolicy,
  consoleHeaders,
  readConsoleFiles
} from "./ConsoleRoute.ts"
export { DepositHandlers } from "./DepositHandlers.ts"
export {
  errorResponse,
  maxBodyBytes,
  RequestId,
  requestIdHeader,
  withErrorEnvelope,
  withRequestId
} from "./ErrorEnvelope.ts"
export { FaviconRoute, faviconDataUri, faviconSvg } from "./Favicon.ts"
export { idempotencyKeyHeader, withIdempotency } from "./Idempotency.ts"
export { InviteHandlers } from "./InviteHandlers.ts"
export { contentSecurityPolicy, escapeHtml, InvitePage, invitePage } from "./InvitePage.ts"
export { InvoiceHandlers } from "./InvoiceHandlers.ts"
export {
  HttpMetricsEnabled,
  MetricsListener,
  MetricsRoute,
  type RouteTemplateOf,
  routeTemplatesOf,
  withHttpObservability
} from "./Metrics.ts"
export { BalanceHandlers, PaymentHandlers, type PaymentPorts } from "./PaymentHandlers.ts"
export { PayoutHandlers, PayoutReportHandlers } from "./PayoutHandlers.ts"
export { PayoutReportPage, payoutReportPage } from "./PayoutReportPage.ts"
export { PayScheduleHandlers } from "./PayScheduleHandlers.ts"
export {
  defaultRateLimits,
  makeBuckets,
  noRateLimits,
  type RateLimitSettings,
  RateLimits,
  type Take,
  withRateLimits
} from "./RateLimit.ts"
export { httpDuration, httpRequests } from "./RequestMetrics.ts"
export { RequestTimeout, withRequestTimeout } from "./RequestTimeout.ts"
export { ServerConfig } from "./ServerConfig.ts"
export { SystemHandlers } from "./SystemHandlers.ts"
export { TeamHandlers } from "./TeamHandlers.ts"
export { charsetOf, withUtf8Bodies } from "./Utf8Bodies.ts"
export { type V1Options, V1Route, v1RouteTemplates, withV1Errors } from "./V1Route.ts"
export { WebhookHandlers } from "./WebhookHandlers.ts"
