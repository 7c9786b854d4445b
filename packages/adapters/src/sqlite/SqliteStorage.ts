/**
 * Every storage port on one SQLite database: what the composition root picks for the embedded default.
 */
import { Layer } from "effect"
import { SqliteDatabase } from "./SqliteDatabase.ts"
import * as SqliteDeposits from "./SqliteDeposits.ts"
import * as SqliteEventOutbox from "./SqliteEventOutbox.ts"
import * as SqliteIdempotencyStore from "./SqliteIdempotencyStore.ts"
import * as SqliteInvites from "./SqliteInvites.ts"
import * as SqliteInvoices from "./SqliteInvoices.ts"
import * as SqliteIssuedRequestStore from "./SqliteIssuedRequestStore.ts"
import * as SqliteNonceStore from "./SqliteNonceStore.ts"
import * as SqlitePaymentLedger from "./SqlitePaymentLedger.ts"
import * as SqlitePayouts from "./SqlitePayouts.ts"
import * as SqlitePaySchedules from "./SqlitePaySchedules.ts"
import * as SqliteRepositories from "./SqliteRepositories.ts"
import * as SqliteRetention from "./SqliteRetention.ts"
import * as SqliteStorageHealth from "./SqliteStorageHealth.ts"
import * as SqliteTransactionJournal from "./SqliteTransactionJournal.ts"
import * as SqliteUnitOfWork from "./SqliteUnitOfWork.ts"
import * as SqliteV1IdMap from "./SqliteV1IdMap.ts"
import * as SqliteWebhooks from "./SqliteWebhooks.ts"

/** The ports on a `SqliteDatabase` provided from elsewhere (to share one connection, or to reach it in tests). */
export const ports = Layer.mergeAll(
  SqliteRepositories.layer,
  SqliteNonceStore.layer,
  SqliteIdempotencyStore.layer,
  SqliteIssuedRequestStore.layer,
  SqlitePaymentLedger.layer,
  SqlitePaySchedules.layer,
  SqlitePayouts.layer,
  SqliteDeposits.layer,
  SqliteEventOutbox.layer,
  SqliteInvites.layer,
  SqliteInvoices.layer,
  SqliteWebhooks.layer,
  SqliteV1IdMap.layer,
  SqliteStorageHealth.layer,
  SqliteTransactionJournal.layer,
  SqliteRetention.layer,
  SqliteUnitOfWork.layer
)

/**
 * Every storage port on the database at `filename` (`":memory:"` for a private in-memory one), opened and migrated
 * when the layer is built and closed with its scope.
 */
export const layer = (options: { readonly filename: string; readonly busyTimeoutMillis?: number | undefined }) =>
  ports.pipe(Layer.provide(SqliteDatabase.layer(options)))
