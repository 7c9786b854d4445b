/**
 * On-chain settlement: the `ChainGateway` port, the signed requests it executes, its results and its errors, and the
 * journal of the transactions that carry them.
 */
export * from "./BlockCursor.ts"
export * from "./ChainError.ts"
export { ChainGateway, type SettlementProgress } from "./ChainGateway.ts"
export { ChainSupervision } from "./ChainSupervision.ts"
export * from "./ForwardRequest.ts"
export type * from "./Settlement.ts"
export { svcAccountSaltOf } from "./SvcAccountSalt.ts"
export { TestChain, type TestChainBehaviour } from "./TestChain.ts"
export * from "./TransactionJournal.ts"
