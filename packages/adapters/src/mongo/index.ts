/**
 * The MongoDB adapter, the scale-out option: the connection, every repository of the API, nonces, idempotency keys,
 * issued typed data, the payments ledger and the event outbox.
 */
export * as Leases from "./Leases.ts"
export * as MongoChangeStreams from "./MongoChangeStreams.ts"
export {
  clientOptionsOf,
  defaultMongoTimeouts,
  type MongoConnection,
  MongoDatabase,
  type MongoTimeouts,
  MongoUnreachable
} from "./MongoDatabase.ts"
export * as MongoDeposits from "./MongoDeposits.ts"
export { DuplicateKey, type MongoFailure, WriteConflict } from "./MongoErrors.ts"
export * as MongoEventOutbox from "./MongoEventOutbox.ts"
export * as MongoIdempotencyStore from "./MongoIdempotencyStore.ts"
export * as MongoInvites from "./MongoInvites.ts"
export * as MongoInvoices from "./MongoInvoices.ts"
export * as MongoIssuedRequestStore from "./MongoIssuedRequestStore.ts"
export {
  type MongoMigration,
  MongoSchemaTooNew,
  migrate as migrateMongo,
  migrations as mongoMigrations
} from "./MongoMigrations.ts"
export * as MongoNonceStore from "./MongoNonceStore.ts"
export * as MongoPaymentLedger from "./MongoPaymentLedger.ts"
export * as MongoPayouts from "./MongoPayouts.ts"
export * as MongoRepositories from "./MongoRepositories.ts"
export * as MongoStorage from "./MongoStorage.ts"
export * as MongoUnitOfWork from "./MongoUnitOfWork.ts"
export * as MongoV1IdMap from "./MongoV1IdMap.ts"
export * as MongoWebhooks from "./MongoWebhooks.ts"
