/**
 * The MongoDB adapter: the connection, every repository of the API, nonces and idempotency keys.
 */
export { MongoDatabase } from "./MongoDatabase.ts"
export * as MongoIdempotencyStore from "./MongoIdempotencyStore.ts"
export * as MongoNonceStore from "./MongoNonceStore.ts"
export * as MongoRepositories from "./MongoRepositories.ts"
