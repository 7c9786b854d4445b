/** Payments: records, API schemas, the state machine and the repository port. */
export * from "./Balance.ts"
export * from "./Payment.ts"
export * from "./PaymentItem.ts"
export * from "./PaymentLedger.ts"
export * from "./PaymentMachine.ts"
export * from "./PaymentPlan.ts"
export * from "./PaymentRequests.ts"
