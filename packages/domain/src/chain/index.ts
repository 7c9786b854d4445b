/**
 * On-chain settlement: the `ChainGateway` port, the signed requests it executes, its results and its errors.
 */
export * from "./ChainError.ts"
export { ChainGateway } from "./ChainGateway.ts"
export { ChainSupervision } from "./ChainSupervision.ts"
export * from "./ForwardRequest.ts"
export type * from "./Settlement.ts"
export { svcAccountSaltOf } from "./SvcAccountSalt.ts"
