/** Deposits: money arriving at team accounts, read from the chain (decision 0064). */
export * from "./Deposit.ts"
export * as DepositFollower from "./DepositFollower.ts"
export * from "./DepositLedger.ts"
export * from "./Deposits.ts"
