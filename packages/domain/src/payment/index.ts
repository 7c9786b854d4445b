/**
 * Payments: records, API schemas, the state machine, the ledger port, the payment use cases (`Payments`) and the
 * intent runner (`IntentRunner`).
 */
export * as AbandonedExecutions from "./AbandonedExecutions.ts"
export * from "./Balance.ts"
export { cancelIntent } from "./CancelIntent.ts"
export {
  executeOnce,
  releaseOnRefusal,
  type Settled,
  SettlementWait,
  sendToChain,
  settleWithin
} from "./ExecuteOnce.ts"
export { executeSignedPayments } from "./ExecuteSignedPayments.ts"
export { getBalance } from "./GetBalance.ts"
export * from "./IntentCancellation.ts"
export * as IntentRunner from "./IntentRunner.ts"
export * from "./IssuedPayments.ts"
export * as IssuedRequestExpiry from "./IssuedRequestExpiry.ts"
export * from "./IssuedRequestPolicy.ts"
export { issueInstantPayment } from "./IssueInstantPayment.ts"
export { issuePayments } from "./IssuePayments.ts"
export * from "./Payment.ts"
export * from "./PaymentErrors.ts"
export * from "./PaymentEvents.ts"
export { type AbandonedOutcome, type ExecutionAnswer, paymentsExecuted, paymentsFailed } from "./PaymentExecution.ts"
export { paymentsIssued } from "./PaymentIssuance.ts"
export * from "./PaymentItem.ts"
export * from "./PaymentItems.ts"
export * from "./PaymentLedger.ts"
export * from "./PaymentMachine.ts"
export * from "./PaymentPlan.ts"
export * from "./PaymentRequests.ts"
export * from "./Payments.ts"
export * from "./PaymentsCursor.ts"
export { queryPayments } from "./QueryPayments.ts"
