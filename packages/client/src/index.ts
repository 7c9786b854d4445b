/**
 * `@svc/client`: the svc API for integrators, with plain promises (README.md).
 */
export {
  createSvcClient,
  type EthersSigner,
  type SvcAccount,
  type SvcClient,
  type ViemAccount
} from "./Client.ts"
export { type Eip1193Provider, eip1193Account, requestWalletAddress } from "./Eip1193.ts"
export type { SvcOperations } from "./Operations.ts"
export type {
  InstantPaymentRequest,
  ManagerInvitesRequest,
  Payee,
  PaymentRequest,
  PaymentResult,
  PreparedGrant,
  PreparedPayment
} from "./Prepared.ts"
export { SvcError } from "./Run.ts"
export { renewWithinSeconds, type SessionStore } from "./Session.ts"
export { verifyWebhook, type WebhookHeaders, WebhookVerificationError } from "./Webhook.ts"
