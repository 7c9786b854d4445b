/**
 * The webhook delivery log in MongoDB: `webhook_deliveries` (unique on event and endpoint) and `webhook_attempts` (one
 * document per attempt: jongodb has no `$push`). Due deliveries are taken with the adapter's one lease mechanism
 * (`Leases.ts`); an attempt and the delivery's new state are written in one transaction, only while the attempt's
 * holder still holds the delivery.
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
import type { Collection, Document, Filter, MongoClient } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder, recordDecoder } from "./MongoDocuments.ts"
import { isDuplicateKey } from "./MongoErrors.ts"
import { inTransaction } from "./MongoTransaction.ts"

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

/** An attempt as stored: what it did not get is `null`. */
interface AttemptDocument {
  _id: string
  delivery_nanoid: DeliveryId
  number: number
  at: number
  status_code: number | null
  duration_ms: number
  error: string | null
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

/** An attempt as `webhook_attempts` keeps it: what it did not get is `null`. */
const StoredAttempt = Schema.Struct({
  delivery_nanoid: DeliveryId,
  number: Schema.Number,
  at: Schema.Number,
  status_code: Schema.optional(Schema.NullOr(Schema.Number)),
  duration_ms: Schema.Number,
  error: Schema.optional(Schema.NullOr(Schema.String))
})

const storedAttemptOf = recordDecoder("webhook_attempts", StoredAttempt)

const attemptOf = (doc: Document): DeliveryAttempt => {
  const attempt = storedAttemptOf(doc)
  return {
    delivery_nanoid: attempt.delivery_nanoid,
    number: attempt.number,
    at: attempt.at,
    status_code: attempt.status_code ?? undefined,
    duration_ms: attempt.duration_ms,
    error: attempt.error ?? undefined
  }
}

/** When the oldest pending delivery was made (`backlog` reads only it). */
const createdOf = documentDecoder("webhook_deliveries", Schema.Struct({ created_at: Schema.Number }))

/** The collections of the delivery log, and the deliveries' leases. */
interface DeliveryCollections {
  readonly client: MongoClient
  readonly deliveries: Collection<DeliveryDocument>
  readonly attempts: Collection<AttemptDocument>
  readonly leases: ReturnType<typeof Leases.on<DeliveryDocument>>
}

/** The deliveries of `docs` with their attempts, oldest attempt first. */
const logged = async (
  collections: DeliveryCollections,
  docs: ReadonlyArray<DeliveryDocument>
): Promise<ReadonlyArray<LoggedDelivery>> => {
  const deliveries = docs.map(deliveryOf)
  const found =
    deliveries.length === 0
      ? []
      : await collections.attempts
          .find({ delivery_nanoid: { $in: deliveries.map((d) => d.nanoid) } })
          .sort({ delivery_nanoid: 1, number: 1 })
          .toArray()
  const byDelivery = new Map<string, Array<DeliveryAttempt>>()
  for (const doc of found) {
    const attempt = attemptOf(doc)
    const list = byDelivery.get(attempt.delivery_nanoid) ?? []
    list.push(attempt)
    byDelivery.set(attempt.delivery_nanoid, list)
  }
  return deliveries.map((d) => ({ ...d, attempt_log: byDelivery.get(d.nanoid) ?? [] }))
}

const requeueSet = (now: number) => ({
  $set: { status: "pending" as const, next_attempt_at: now, first_attempt_at: null, updated_at: now }
})

/** One delivery per (event, endpoint): a duplicate is skipped (jongodb stops a batch at the first duplicate). */
const enqueue = async (col: Collection<DeliveryDocument>, list: ReadonlyArray<WebhookDelivery>) => {
  for (const d of list) {
    await col
      .insertOne({
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
      .catch((error: unknown) => {
        if (!isDuplicateKey(error)) throw error
      })
  }
}

const claimDue = async (
  collections: DeliveryCollections,
  { now, limit, leaseMillis }: { readonly now: number; readonly limit: number; readonly leaseMillis: number }
) => {
  const until = now + leaseMillis
  const claimed: Array<ClaimedDelivery> = []
  while (claimed.length < limit) {
    const taken = await collections.leases.takeNext(
      { status: "pending", next_attempt_at: { $lte: now } } as Filter<DeliveryDocument>,
      { sort: { next_attempt_at: 1, _id: 1 }, now, until }
    )
    if (taken === null) break
    claimed.push({ delivery: deliveryOf(taken.doc), lease: taken.lease })
  }
  return claimed
}

/** The attempt's document. */
const attemptDocumentOf = (a: DeliveryAttempt): AttemptDocument => ({
  _id: `${a.delivery_nanoid}:${a.number}`,
  delivery_nanoid: a.delivery_nanoid,
  number: a.number,
  at: a.at,
  status_code: a.status_code ?? null,
  duration_ms: a.duration_ms,
  error: a.error ?? null
})

const record = (collections: DeliveryCollections, id: DeliveryId, token: FencingToken, change: AttemptRecord) =>
  inTransaction(collections.client, async (session) => {
    const applied = await collections.leases.whileHeld(
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
      await collections.attempts.insertOne(attemptDocumentOf(change.attempt), { session })
    }
    return applied
  })

const list = async (
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
  const docs = await collections.deliveries
    .find(filter as Filter<DeliveryDocument>)
    .sort({ created_at: -1, _id: -1 })
    .limit(options.limit)
    .toArray()
  return logged(collections, docs)
}

const backlog = async (col: Collection<DeliveryDocument>) => {
  const pending = { status: "pending" } as Filter<DeliveryDocument>
  const [count, oldest] = await Promise.all([
    col.countDocuments(pending),
    col.findOne(pending, { sort: { created_at: 1 }, projection: { created_at: 1 } })
  ])
  return { count, oldest: oldest === null ? undefined : createdOf(oldest).created_at }
}

/** The delivery log. */
export const deliveries = Layer.effect(
  WebhookDeliveryStore,
  Effect.gen(function* () {
    const { db, client } = yield* MongoDatabase
    const col = db.collection<DeliveryDocument>("webhook_deliveries")
    const attempts = db.collection<AttemptDocument>("webhook_attempts")
    yield* Effect.promise(() => col.createIndex({ event_id: 1, webhook_nanoid: 1 }, { unique: true }))
    yield* Effect.promise(() => col.createIndex({ status: 1, next_attempt_at: 1 }))
    yield* Effect.promise(() => col.createIndex({ webhook_nanoid: 1, created_at: -1, _id: -1 }))
    yield* Effect.promise(() => attempts.createIndex({ delivery_nanoid: 1, number: 1 }))
    const collections: DeliveryCollections = { client, deliveries: col, attempts, leases: Leases.on(col) }
    return WebhookDeliveryStore.of({
      enqueue: (list) => Effect.promise(() => enqueue(col, list)),
      claimDue: (options) => Effect.promise(() => claimDue(collections, options)),
      record: (id, token, attempt) => record(collections, id, token, attempt),
      findById: (id) =>
        Effect.promise(async () => {
          const doc = await col.findOne({ _id: id })
          return doc === null ? undefined : (await logged(collections, [doc]))[0]
        }),
      list: (webhook, options) => Effect.promise(() => list(collections, webhook, options)),
      requeue: (id, now) =>
        Effect.promise(() => col.updateOne({ _id: id }, requeueSet(now))).pipe(Effect.map((r) => r.matchedCount > 0)),
      requeueFailed: (webhook, { since, by, now }) =>
        Effect.promise(() =>
          col.updateMany(
            {
              webhook_nanoid: webhook,
              status: "failed",
              [by === "created" ? "created_at" : "updated_at"]: { $gte: since }
            },
            requeueSet(now)
          )
        ).pipe(Effect.map((r) => r.modifiedCount)),
      backlog: Effect.promise(() => backlog(col))
    })
  })
)
