/**
 * The memory adapter: the same ports as MongoDB, in one process.
 */

export * as MemoryPayments from "./MemoryPayments.ts"
export * as MemoryRepositories from "./MemoryRepositories.ts"
