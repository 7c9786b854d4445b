/**
 * The EVM adapter: the viem `ChainGateway`, its relayer, and deployment of the settlement contracts.
 */
export { makeChainClient, rpcUrlsOf } from "./ChainClient.ts"
export {
  arbitrumOneUsdc,
  BatchConfig,
  type ChainSettings,
  ChainSettingsConfig,
  defaultConfirmations,
  rpcUrlConfig
} from "./ChainSettings.ts"
export { ContractsVersionMismatch, checkSuite, contractsVersion } from "./ContractsVersion.ts"
export { create2Deployer, type Deployment, type DeployOptions, deploymentSalt, deployOrFind } from "./Deploy.ts"
export { EmbeddedChain } from "./EmbeddedChain.ts"
export { packPayment, packPayments } from "./PackedPayment.ts"
export { processJournal } from "./ProcessJournal.ts"
export {
  bumped,
  keyOfAffinity,
  makeRelayer,
  type RelayedTransaction,
  type Relayer,
  type RelayerOptions,
  transactionsReorganised
} from "./Relayer.ts"
export {
  type BatchOptions,
  type Carried,
  logsOfRequest,
  makeRequestBatcher,
  type RequestBatcher
} from "./RequestBatcher.ts"
export * as SignerKeys from "./SignerKeys.ts"
export { type DeployedSuite, deploySuite, mintTestUsdc, setOperators } from "./Suite.ts"
export * as ViemChainGateway from "./ViemChainGateway.ts"
