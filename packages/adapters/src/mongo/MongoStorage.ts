/**
 * Every storage port on one MongoDB database: what the composition root picks to scale out.
 */
import { Layer } from "effect"
import * as MongoChangeStreams from "./MongoChangeStreams.ts"
import { MongoDatabase, type MongoTimeouts } from "./MongoDatabase.ts"
import * as MongoDeposits from "./MongoDeposits.ts"
import * as MongoEventOutbox from "./MongoEventOutbox.ts"
import * as MongoIdempotencyStore from "./MongoIdempotencyStore.ts"
import * as MongoInvites from "./MongoInvites.ts"
import * as MongoInvoices from "./MongoInvoices.ts"
import * as MongoIssuedRequestStore from "./MongoIssuedRequestStore.ts"
import * as MongoMigrations from "./MongoMigrations.ts"
import * as MongoNonceStore from "./MongoNonceStore.ts"
import * as MongoPaymentLedger from "./MongoPaymentLedger.ts"
import * as MongoPayouts from "./MongoPayouts.ts"
import * as MongoPaySchedules from "./MongoPaySchedules.ts"
import * as MongoRepositories from "./MongoRepositories.ts"
import * as MongoRetention from "./MongoRetention.ts"
import * as MongoStorageHealth from "./MongoStorageHealth.ts"
import * as MongoTransactionJournal from "./MongoTransactionJournal.ts"
import * as MongoUnitOfWork from "./MongoUnitOfWork.ts"
import * as MongoV1IdMap from "./MongoV1IdMap.ts"
import * as MongoWebhooks from "./MongoWebhooks.ts"

/** The ports on a `MongoDatabase` provided from elsewhere (to share one client, or to reach it in tests). */
export const ports = Layer.mergeAll(
  MongoRepositories.layer,
  MongoNonceStore.layer,
  MongoIdempotencyStore.layer,
  MongoIssuedRequestStore.layer,
  MongoPaymentLedger.layer,
  MongoPaySchedules.layer,
  MongoPayouts.layer,
  MongoDeposits.layer,
  MongoEventOutbox.layer,
  MongoInvites.layer,
  MongoInvoices.layer,
  MongoWebhooks.layer,
  MongoV1IdMap.layer,
  MongoStorageHealth.layer,
  MongoTransactionJournal.layer,
  MongoRetention.layer,
  MongoUnitOfWork.layer,
  MongoChangeStreams.layer
).pipe(
  // The schema is migrated before any adapter starts.
  Layer.provide(MongoMigrations.layer)
)

/**
 * Every storage port on database `database` (else the URI's, else `svc`) of the replica set at `uri`; the schema is
 * migrated and the indexes created when the layer is built, and the client is closed with its scope. (A stand-in test
 * server gets its own `MongoDatabase` under `ports`: `embedded/`.)
 */
export const layer = (options: {
  readonly uri: string
  readonly database?: string | undefined
  readonly timeouts?: MongoTimeouts | undefined
}) => ports.pipe(Layer.provide(MongoDatabase.layer(options)))
