/**
 * The event outbox in MongoDB (`event_outbox`, `_id` = event id). The payments ledger appends events in the same
 * transaction as the state they report; a dispatcher leases undispatched events one conditional update at a time,
 * so two workers never hold one event at once.
 */
import { type DomainEvent, EventOutbox } from "@svc/domain/event"
import type { EventId } from "@svc/domain/Ids"
import { Effect, Layer } from "effect"
import { type Document, MongoBulkWriteError } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"

/** The outbox collection. */
export const outboxCollection = "event_outbox"

/** A stored event: the event, whether it was fanned out, and its lease. */
export interface OutboxDocument {
  _id: string
  event: DomainEvent
  created: number
  dispatched: boolean
  lease_until: number
  lease_owner?: string
}

/** The document an event is stored as. */
export const outboxDocumentOf = (event: DomainEvent): OutboxDocument => ({
  _id: event.id,
  event,
  created: event.created,
  dispatched: false,
  lease_until: 0
})

const eventOf = (doc: Document | null): DomainEvent | undefined => (doc === null ? undefined : doc.event)

/** The MongoDB outbox. */
export const layer = Layer.effect(
  EventOutbox,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<OutboxDocument>(outboxCollection)
    yield* Effect.promise(() => col.createIndex({ dispatched: 1, created: 1 }))
    // jongodb does not apply `findOneAndUpdate` atomically (`updateOne` it does): pick candidates oldest first, take one
    // with a conditional `updateOne` on its id, then read it.
    const claimOne = (now: number, worker: string, leaseMillis: number) =>
      Effect.promise(async () => {
        const free = { dispatched: false, lease_until: { $lt: now } }
        const candidates = await col
          .find(free, { projection: { _id: 1 } })
          .sort({ created: 1, _id: 1 })
          .limit(20)
          .toArray()
        for (const candidate of candidates) {
          const taken = await col.updateOne(
            { ...free, _id: candidate._id },
            { $set: { lease_until: now + leaseMillis, lease_owner: worker } }
          )
          if (taken.modifiedCount === 1) return col.findOne({ _id: candidate._id })
        }
        return null
      }).pipe(Effect.map(eventOf))
    return EventOutbox.of({
      append: (events) =>
        events.length === 0
          ? Effect.void
          : Effect.tryPromise({
              try: () => col.insertMany(events.map(outboxDocumentOf), { ordered: false }),
              catch: (error) => error
            }).pipe(
              Effect.asVoid,
              // A second append of the same id is ignored (duplicate keys); anything else is a defect.
              Effect.catch((error) =>
                error instanceof MongoBulkWriteError &&
                error.writeErrors !== undefined &&
                (Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]).every(
                  (e) => e.code === 11000
                )
                  ? Effect.void
                  : Effect.die(error)
              )
            ),
      claim: ({ now, limit, worker, leaseMillis }) =>
        Effect.gen(function* () {
          const claimed: Array<DomainEvent> = []
          while (claimed.length < limit) {
            const event = yield* claimOne(now, worker, leaseMillis)
            if (event === undefined) break
            claimed.push(event)
          }
          return claimed
        }),
      markDispatched: (id: EventId) =>
        Effect.promise(() => col.updateOne({ _id: id }, { $set: { dispatched: true } })).pipe(Effect.asVoid),
      findById: (id) => Effect.promise(() => col.findOne({ _id: id })).pipe(Effect.map(eventOf))
    })
  })
)
