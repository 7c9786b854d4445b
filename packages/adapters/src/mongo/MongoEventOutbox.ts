/**
 * The event outbox in MongoDB (`event_outbox`, `_id` = event id). Use cases append events in the unit of work of the
 * change they report (decision 0080), so both commit together; a dispatcher leases undispatched events oldest first,
 * one `Leases.takeNext` at a time, so two workers never hold one event at once. A change stream wakes dispatchers
 * when events arrive (`MongoChangeStreams.ts`).
 */
import { type ClaimedEvent, DomainEvent, EventOutbox } from "@svc/domain/event"
import type { EventId } from "@svc/domain/Ids"
import { Effect, Layer, Schema } from "effect"
import type { ClientSession, Db, Document } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { UnitSession } from "./MongoTransaction.ts"

/** The outbox collection. */
export const outboxCollection = "event_outbox"

/** A stored event: the event, whether it was fanned out, and its lease. */
export interface OutboxDocument extends Leases.LeaseFields {
  _id: string
  event: DomainEvent
  created: number
  dispatched: boolean
}

/** The document an event is stored as. */
const outboxDocumentOf = (event: DomainEvent): OutboxDocument => ({
  _id: event.id,
  event,
  created: event.created,
  dispatched: false,
  lease_until: 0
})

/** The collection of each team's last event sequence number (`_id` = team id). */
const sequencesCollection = "team_event_sequences"

/**
 * Numbers each event of a team with the team's next `sequence` (one atomic `$inc` per event), in `session`'s
 * transaction, so the numbers commit with the events.
 */
const numbered = (db: Db, events: ReadonlyArray<DomainEvent>, session: ClientSession) =>
  Effect.forEach(events, (event) => {
    const team = event.team_nanoid
    if (team === undefined) return Effect.succeed(event)
    return tryMongo(() =>
      db
        .collection<{ _id: string; last: number }>(sequencesCollection)
        .findOneAndUpdate({ _id: team }, { $inc: { last: 1 } }, { upsert: true, returnDocument: "after", session })
    ).pipe(Effect.map((doc) => ({ ...event, sequence: doc?.last ?? 1 })))
  })

/**
 * Appends the events not stored yet to the outbox in `session`'s transaction, numbered in it (decision 0024): the
 * ones known are read first, so a second append of an event takes no sequence number and leaves no gap.
 */
const appendIn = (db: Db, events: ReadonlyArray<DomainEvent>, session: ClientSession) =>
  Effect.gen(function* () {
    const col = db.collection<OutboxDocument>(outboxCollection)
    const known = yield* tryMongo(() =>
      col.find({ _id: { $in: events.map((e) => e.id) } }, { projection: { _id: 1 }, session }).toArray()
    )
    const fresh = events.filter((e) => !known.some((d) => d._id === e.id))
    if (fresh.length === 0) return
    const stored = yield* numbered(db, fresh, session)
    yield* tryMongo(() => col.insertMany(stored.map(outboxDocumentOf), { session }))
  })

const storedEventOf = documentDecoder(outboxCollection, Schema.Struct({ event: DomainEvent }))

const eventOf = (doc: Document | null): DomainEvent | undefined => (doc === null ? undefined : storedEventOf(doc).event)

/** When the oldest waiting event was made (`backlog` reads only it). */
const createdOf = documentDecoder(outboxCollection, Schema.Struct({ created: Schema.Number }))

/** The MongoDB outbox. */
export const layer = Layer.effect(
  EventOutbox,
  Effect.gen(function* () {
    const { db, transaction } = yield* MongoDatabase
    const col = db.collection<OutboxDocument>(outboxCollection)
    yield* toPort(tryMongo(() => col.createIndex({ dispatched: 1, created: 1 })))
    const leases = Leases.on(col)
    const claimOne = (now: number, leaseMillis: number) =>
      leases.takeNext({ dispatched: false }, { sort: { created: 1, _id: 1 }, now, until: now + leaseMillis }).pipe(
        Effect.map((taken) => {
          const event = taken === null ? undefined : eventOf(taken.doc)
          return taken === null || event === undefined ? undefined : { event, lease: taken.lease }
        })
      )
    return EventOutbox.of({
      // In a unit of work, the events commit with its changes; else in a transaction of their own. A second append
      // of the same id is ignored; one racing it outside a unit finds it stored when it runs again.
      append: (events) =>
        events.length === 0
          ? Effect.void
          : Effect.flatMap(Effect.service(UnitSession), (unit) =>
              unit === undefined
                ? transaction((session) => appendIn(db, events, session)).pipe(
                    Effect.retry({ while: (error) => error._tag === "DuplicateKey", times: 1 })
                  )
                : appendIn(db, events, unit)
            ).pipe(toPort),
      claim: ({ now, limit, leaseMillis }) =>
        Effect.gen(function* () {
          const claimed: Array<ClaimedEvent> = []
          while (claimed.length < limit) {
            const taken = yield* claimOne(now, leaseMillis)
            if (taken === undefined) break
            claimed.push(taken)
          }
          return claimed
        }).pipe(toPort),
      // Only while the dispatcher's token is the event's current one: one paused past its lease changes nothing.
      markDispatched: (id: EventId, token) =>
        leases.whileHeld({ _id: id }, token, { $set: { dispatched: true } }).pipe(Effect.asVoid, toPort),
      findById: (id) => tryMongo(() => col.findOne({ _id: id })).pipe(Effect.map(eventOf), toPort),
      backlog: tryMongo(() =>
        Promise.all([
          col.countDocuments({ dispatched: false }),
          col.findOne({ dispatched: false }, { sort: { created: 1, _id: 1 }, projection: { created: 1 } })
        ])
      ).pipe(
        // `created` is the event's, in seconds.
        Effect.map(([count, oldest]) => ({
          count,
          oldest: oldest === null ? undefined : createdOf(oldest).created * 1000
        })),
        toPort
      )
    })
  })
)
