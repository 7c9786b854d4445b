/**
 * `@svc/client`: the svc API for integrators, with plain promises (README.md). Everything an integrator names is
 * exported here, in plain values: there is no need to import `@svc/domain` or `@svc/contract`.
 */
export {
  createSvcClient,
  type EthersSigner,
  type PayInvoicesRequest,
  type SvcAccount,
  type SvcClient,
  type ViemAccount
} from "./Client.ts"
export { type Eip1193Provider, eip1193Account, requestWalletAddress } from "./Eip1193.ts"
export type {
  CashRequirementEventPayload,
  DuplicateAccountEventPayload,
  InviteEventPayload,
  InvoiceEventPayload,
  MemberBlockedEventPayload,
  MemberEventPayload,
  PaymentEventPayload,
  PaymentGroupEventPayload,
  SubscriptionEventPayload,
  WebhookEndpointEventPayload,
  WebhookEvent,
  WebhookEventPayload,
  WebhookEventType,
  WebhookEventV1,
  WithdrawAccountEventPayload
} from "./Events.ts"
export type { SvcGroup, SvcOperation, SvcOperations, SvcRequest, SvcResult } from "./Operations.ts"
export type { PayoutChangeRequest, PayoutTypedData } from "./PayoutChange.ts"
export type { Plain, PlainInput } from "./Plain.ts"
export type {
  InstantPaymentRequest,
  ManagerInvitesRequest,
  Payee,
  PaymentResult,
  PayRequest,
  PreparedGrant,
  PreparedPayment
} from "./Prepared.ts"
export type {
  Balance,
  Deposit,
  Invite,
  Invoice,
  MyTeam,
  Payment,
  Team,
  TeamUser,
  TypedDataBundle,
  WebhookDelivery,
  WebhookEndpoint
} from "./Results.ts"
export type {
  PreparedSchedule,
  ScheduledPayee,
  ScheduleInvoicePayee,
  SchedulePayee,
  ScheduleRequest,
  ScheduleResult
} from "./Schedules.ts"
export { renewWithinSeconds, type SessionStore } from "./Session.ts"
export { SvcError, type SvcErrorCode } from "./SvcError.ts"
export { verifyWebhook, type WebhookHeaders, WebhookVerificationError } from "./Webhook.ts"
