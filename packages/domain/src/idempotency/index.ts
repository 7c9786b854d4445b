/** Idempotency keys: the port that stores claims and the answers they replay. */
export * from "./IdempotencyStore.ts"
