/**
 * The webhook delivery log in MongoDB: `webhook_deliveries` (unique on event and endpoint) and `webhook_attempts` (one
 * document per attempt, so a delivery's document stays small). Due deliveries are taken with the adapter's one lease
 * mechanism (`Leases.ts`); an attempt and the delivery's new state are written in one transaction, only while the
 * attempt's holder still holds the delivery.
 */
import { DomainEvent, PayloadVersion } from "@svc/domain/event"
import { DeliveryId, TeamId, WebhookId } from "@svc/domain/Ids"
import type { FencingToken } from "@svc/domain/Lease"
import {
  type AttemptRecord,
  type ClaimedDelivery,
  type DeliveryAttempt,
  type DeliveryStatus,
  DeliveryStatusSchema,
  type LoggedDelivery,
  type WebhookDelivery,
  WebhookDeliveryStore
} from "@svc/domain/webhook"
import { Effect, Layer, Schema } from "effect"
import type { Collection, Document, Filter } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { type AttemptDocument, attemptDocumentOf, attemptOf } from "./MongoDeliveryAttempts.ts"
import { documentDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { inTransaction, type TransactionRunner } from "./MongoTransaction.ts"

interface DeliveryDocument extends Leases.LeaseFields {
  _id: string
  webhook_nanoid: string
  team_nanoid: string
  event_id: string
  event: DomainEvent
  version?: number | undefined
  status: DeliveryStatus
  attempts: number
  next_attempt_at?: number | null | undefined
  first_attempt_at?: number | null | undefined
  created_at: number
  updated_at: number
}

/** A time not set is stored as `null` (or was never written). */
const MaybeTime = Schema.optional(Schema.NullOr(Schema.Number))

/** A delivery as `webhook_deliveries` keeps it (the domain has its type, not a schema). */
const StoredDelivery = Schema.Struct({
  _id: DeliveryId,
  webhook_nanoid: WebhookId,
  team_nanoid: TeamId,
  event: DomainEvent,
  version: Schema.optional(Schema.NullOr(PayloadVersion)),
  status: DeliveryStatusSchema,
  attempts: Schema.Number,
  next_attempt_at: MaybeTime,
  first_attempt_at: MaybeTime,
  created_at: Schema.Number,
  updated_at: Schema.Number
})

const storedDeliveryOf = documentDecoder("webhook_deliveries", StoredDelivery)

const deliveryOf = (doc: Document): WebhookDelivery => {
  const stored = storedDeliveryOf(doc)
  return {
    nanoid: stored._id,
    webhook_nanoid: stored.webhook_nanoid,
    team_nanoid: stored.team_nanoid,
    event: stored.event,
    ...(stored.version === undefined || stored.version === null ? {} : { version: stored.version }),
    status: stored.status,
    attempts: stored.attempts,
    next_attempt_at: stored.next_attempt_at ?? undefined,
    first_attempt_at: stored.first_attempt_at ?? undefined,
    created_at: stored.created_at,
    updated_at: stored.updated_at
  }
}

/** When the oldest pending delivery was made (`backlog` reads only it). */
const createdOf = documentDecoder("webhook_deliveries", Schema.Struct({ created_at: Schema.Number }))

/** The collections of the delivery log, the deliveries' leases, and the database's transactions. */
interface DeliveryCollections {
  readonly transaction: TransactionRunner
  readonly deliveries: Collection<DeliveryDocument>
  readonly attempts: Collection<AttemptDocument>
  readonly leases: Leases.Leases<DeliveryDocument>
}

/** The deliveries of `docs` with their attempts, oldest attempt first. */
const logged = (collections: DeliveryCollections, docs: ReadonlyArray<DeliveryDocument>) =>
  Effect.gen(function* () {
    const deliveries = docs.map(deliveryOf)
    const found =
      deliveries.length === 0
        ? []
        : yield* tryMongo(() =>
            collections.attempts
              .find({ delivery_nanoid: { $in: deliveries.map((d) => d.nanoid) } })
              .sort({ delivery_nanoid: 1, number: 1 })
              .toArray()
          )
    const byDelivery = new Map<string, Array<DeliveryAttempt>>()
    for (const doc of found) {
      const attempt = attemptOf(doc)
      const list = byDelivery.get(attempt.delivery_nanoid) ?? []
      list.push(attempt)
      byDelivery.set(attempt.delivery_nanoid, list)
    }
    return deliveries.map((d): LoggedDelivery => ({ ...d, attempt_log: byDelivery.get(d.nanoid) ?? [] }))
  })

const requeueSet = (now: number) => ({
  $set: { status: "pending" as const, next_attempt_at: now, first_attempt_at: null, updated_at: now }
})

/** The document a delivery is stored as. */
const deliveryDocumentOf = (d: WebhookDelivery): DeliveryDocument => ({
  _id: d.nanoid,
  webhook_nanoid: d.webhook_nanoid,
  team_nanoid: d.team_nanoid,
  event_id: d.event.id,
  event: d.event,
  ...(d.version === undefined ? {} : { version: d.version }),
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.next_attempt_at ?? null,
  first_attempt_at: d.first_attempt_at ?? null,
  created_at: d.created_at,
  updated_at: d.updated_at,
  lease_until: 0
})

/** One delivery per (event, endpoint), in one unordered insert: a duplicate (a fan-out run again) is skipped. */
const enqueue = (col: Collection<DeliveryDocument>, list: ReadonlyArray<WebhookDelivery>) =>
  list.length === 0
    ? Effect.void
    : tryMongo(() => col.insertMany(list.map(deliveryDocumentOf), { ordered: false })).pipe(
        Effect.asVoid,
        Effect.catchTag("DuplicateKey", () => Effect.void)
      )

/** Leases up to `limit` due deliveries, soonest due first, each under its own new fencing token. */
const claimDue = (
  collections: DeliveryCollections,
  { now, limit, leaseMillis }: { readonly now: number; readonly limit: number; readonly leaseMillis: number }
) =>
  Effect.gen(function* () {
    const until = now + leaseMillis
    const claimed: Array<ClaimedDelivery> = []
    while (claimed.length < limit) {
      const taken = yield* collections.leases.takeNext(
        { status: "pending", next_attempt_at: { $lte: now } } as Filter<DeliveryDocument>,
        { sort: { next_attempt_at: 1, _id: 1 }, now, until }
      )
      if (taken === null) break
      claimed.push({ delivery: deliveryOf(taken.doc), lease: taken.lease })
    }
    return claimed
  })

const record = (collections: DeliveryCollections, id: DeliveryId, token: FencingToken, change: AttemptRecord) =>
  inTransaction(collections.transaction, (session) =>
    Effect.gen(function* () {
      const applied = yield* collections.leases.whileHeld(
        { _id: id },
        token,
        {
          $set: {
            status: change.status,
            next_attempt_at: change.next_attempt_at ?? null,
            first_attempt_at: change.first_attempt_at ?? null,
            updated_at: change.at,
            lease_until: 0
          },
          $inc: { attempts: change.attempt === undefined ? 0 : 1 }
        },
        session
      )
      if (applied && change.attempt !== undefined) {
        const attempt = attemptDocumentOf(change.attempt)
        yield* tryMongo(() => collections.attempts.insertOne(attempt, { session }))
      }
      return applied
    })
  )

const list = (
  collections: DeliveryCollections,
  webhook: WebhookId,
  options: {
    readonly status?: DeliveryStatus | undefined
    readonly before?: { readonly created_at: number; readonly nanoid: DeliveryId } | undefined
    readonly limit: number
  }
) => {
  const filter: Document = { webhook_nanoid: webhook }
  if (options.status !== undefined) filter.status = options.status
  if (options.before !== undefined) {
    filter.$or = [
      { created_at: { $lt: options.before.created_at } },
      { created_at: options.before.created_at, _id: { $lt: options.before.nanoid } }
    ]
  }
  return tryMongo(() =>
    collections.deliveries
      .find(filter as Filter<DeliveryDocument>)
      .sort({ created_at: -1, _id: -1 })
      .limit(options.limit)
      .toArray()
  ).pipe(Effect.flatMap((docs) => logged(collections, docs)))
}

const backlog = (col: Collection<DeliveryDocument>) => {
  const pending = { status: "pending" } as Filter<DeliveryDocument>
  return tryMongo(() =>
    Promise.all([
      col.countDocuments(pending),
      col.findOne(pending, { sort: { created_at: 1 }, projection: { created_at: 1 } })
    ])
  ).pipe(
    Effect.map(([count, oldest]) => ({
      count,
      oldest: oldest === null ? undefined : createdOf(oldest).created_at
    }))
  )
}

/** The delivery log. */
export const deliveries = Layer.effect(
  WebhookDeliveryStore,
  Effect.gen(function* () {
    const { db, transaction } = yield* MongoDatabase
    const col = db.collection<DeliveryDocument>("webhook_deliveries")
    const attempts = db.collection<AttemptDocument>("webhook_attempts")
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          col.createIndex({ event_id: 1, webhook_nanoid: 1 }, { unique: true }),
          col.createIndex({ status: 1, next_attempt_at: 1 }),
          col.createIndex({ webhook_nanoid: 1, created_at: -1, _id: -1 }),
          attempts.createIndex({ delivery_nanoid: 1, number: 1 })
        ])
      )
    )
    const collections: DeliveryCollections = { transaction, deliveries: col, attempts, leases: Leases.on(col) }
    return WebhookDeliveryStore.of({
      enqueue: (list) => toPort(enqueue(col, list)),
      claimDue: (options) => toPort(claimDue(collections, options)),
      record: (id, token, attempt) => toPort(record(collections, id, token, attempt)),
      findById: (id) =>
        tryMongo(() => col.findOne({ _id: id })).pipe(
          Effect.flatMap((doc) =>
            doc === null ? Effect.succeed(undefined) : Effect.map(logged(collections, [doc]), (found) => found[0])
          ),
          toPort
        ),
      list: (webhook, options) => toPort(list(collections, webhook, options)),
      requeue: (id, now) =>
        tryMongo(() => col.updateOne({ _id: id }, requeueSet(now))).pipe(
          Effect.map((r) => r.matchedCount > 0),
          toPort
        ),
      requeueFailed: (webhook, { since, by, now }) =>
        tryMongo(() =>
          col.updateMany(
            {
              webhook_nanoid: webhook,
              status: "failed",
              [by === "created" ? "created_at" : "updated_at"]: { $gte: since }
            },
            requeueSet(now)
          )
        ).pipe(
          Effect.map((r) => r.modifiedCount),
          toPort
        ),
      backlog: toPort(backlog(col))
    })
  })
)
