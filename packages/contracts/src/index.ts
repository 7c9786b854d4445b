/**
 * svc's settlement contracts: ABI and creation bytecode generated from `contracts/*.sol` by `scripts/compile.ts`.
 */
export { svcAccountAbi, svcAccountBytecode } from "./generated/SvcAccount.ts"
export { svcAccountForwarderAbi, svcAccountForwarderBytecode } from "./generated/SvcAccountForwarder.ts"
export { svcEscrowAbi, svcEscrowBytecode } from "./generated/SvcEscrow.ts"
export { testUsdcAbi, testUsdcBytecode } from "./generated/TestUSDC.ts"
