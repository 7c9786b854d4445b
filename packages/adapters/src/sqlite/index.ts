/**
 * The SQLite adapter (`node:sqlite`), the embedded default: the database with its migrations, every repository of
 * the API, nonces, idempotency keys, issued typed data, the payments ledger and the event outbox.
 */
export * as Leases from "./Leases.ts"
export * as Migrations from "./Migrations.ts"
export {
  busyTimeoutMillis,
  SqliteDatabase,
  type SqliteDatabaseError,
  SqliteOpenFailed,
  SqliteSchemaTooNew
} from "./SqliteDatabase.ts"
export * as SqliteDeposits from "./SqliteDeposits.ts"
export * as SqliteEventOutbox from "./SqliteEventOutbox.ts"
export * as SqliteIdempotencyStore from "./SqliteIdempotencyStore.ts"
export * as SqliteInvites from "./SqliteInvites.ts"
export * as SqliteInvoices from "./SqliteInvoices.ts"
export * as SqliteIssuedRequestStore from "./SqliteIssuedRequestStore.ts"
export * as SqliteNonceStore from "./SqliteNonceStore.ts"
export * as SqlitePaymentLedger from "./SqlitePaymentLedger.ts"
export * as SqlitePayouts from "./SqlitePayouts.ts"
export * as SqliteRepositories from "./SqliteRepositories.ts"
export * as SqliteStorage from "./SqliteStorage.ts"
export * as SqliteUnitOfWork from "./SqliteUnitOfWork.ts"
export * as SqliteV1IdMap from "./SqliteV1IdMap.ts"
export * as SqliteWebhooks from "./SqliteWebhooks.ts"
