/**
 * `@svc/client`: the svc API for integrators, with plain promises (README.md).
 */
export {
  createSvcClient,
  type EthersSigner,
  type Payee,
  type PaymentResult,
  type SvcAccount,
  type SvcClient,
  SvcError,
  type SvcOperations,
  type ViemAccount
} from "./Client.ts"
export type { SchedulePayee, ScheduleRequest, ScheduleResult } from "./Schedules.ts"
export { verifyWebhook, type WebhookHeaders, WebhookVerificationError } from "./Webhook.ts"
