/**
 * Retention in MongoDB (`@svc/domain/retention`): the pruning lease is a `worker_leases` document (its fencing token
 * checked before each batch), and each kind is deleted by id after an indexed query of its state and age, bounded by
 * `limit`.
 */
import { type RetainedKind, RetentionStore } from "@svc/domain/retention"
import { Effect, Layer, Option } from "effect"
import type { Document, Filter } from "mongodb"
import { type LeaseFields, takeOrKeep } from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { outboxCollection } from "./MongoEventOutbox.ts"
import { issuedCollection } from "./MongoIssuedRequestStore.ts"

interface LeaseDocument extends LeaseFields {
  _id: string
}

/** Each kind's collection, what is done before `before`, and the index that finds it. */
const pruned: Record<
  RetainedKind,
  { readonly collection: string; readonly done: (before: number) => Filter<Document>; readonly index: Document }
> = {
  // `created` is the event's, in seconds.
  events: {
    collection: outboxCollection,
    done: (before) => ({ dispatched: true, created: { $lt: Math.floor(before / 1000) } }),
    index: { dispatched: 1, created: 1 }
  },
  deliveries: {
    collection: "webhook_deliveries",
    done: (before) => ({ status: { $in: ["succeeded", "failed"] }, updated_at: { $lt: before } }),
    index: { status: 1, updated_at: 1 }
  },
  requests: {
    collection: issuedCollection,
    done: (before) => ({ state: "executed", executedAt: { $lt: before } }),
    index: { state: 1, executedAt: 1 }
  },
  mails: {
    collection: "mail_outbox",
    done: (before) => ({ state: { $in: ["sent", "failed"] }, created: { $lt: before } }),
    index: { state: 1, created: 1 }
  },
  transactions: {
    collection: "chain_transactions",
    done: (before) => ({ status: { $in: ["confirmed", "replaced", "failed"] }, updatedAt: { $lt: before } }),
    index: { status: 1, updatedAt: 1 }
  }
}

/** The retention store; its indexes are created at start. */
export const layer = Layer.effect(
  RetentionStore,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const leases = db.collection<LeaseDocument>("worker_leases")
    yield* toPort(
      tryMongo(() =>
        Promise.all(Object.values(pruned).map((kind) => db.collection(kind.collection).createIndex(kind.index)))
      )
    )
    return RetentionStore.of({
      // Free (lapsed) or ours: taken; held by another: the upsert's insert meets its id and is refused.
      lease: (held, now, until) =>
        takeOrKeep(leases, "retention", { held, now, until }).pipe(Effect.map(Option.fromNullishOr), toPort),
      // Checked before each batch rather than in one write with it (MongoDB deletes across collections cannot name
      // another's document): a pruner that lost the lease meanwhile deletes what the new holder would, done records.
      prune: (kind, before, limit, token) =>
        Effect.gen(function* () {
          if ((yield* tryMongo(() => leases.findOne({ _id: "retention", lease_token: token }))) === null) return 0
          const { collection, done } = pruned[kind]
          const col = db.collection(collection)
          const found = yield* tryMongo(() =>
            col
              .find(done(before), { projection: { _id: 1 } })
              .limit(limit)
              .toArray()
          )
          const ids = found.map((doc) => doc._id)
          if (ids.length === 0) return 0
          // A delivery and its attempts go together: the attempts first, so none outlives its delivery.
          if (kind === "deliveries") {
            yield* tryMongo(() => db.collection("webhook_attempts").deleteMany({ delivery_nanoid: { $in: ids } }))
          }
          return (yield* tryMongo(() => col.deleteMany({ _id: { $in: ids } }))).deletedCount
        }).pipe(toPort)
    })
  })
)
