/**
 * The event outbox in MongoDB (`event_outbox`, `_id` = event id). Use cases append events in the unit of work of the
 * change they report (decision 0080), so both commit together; a dispatcher leases undispatched events oldest first,
 * one `Leases.takeNext` at a time, so two workers never hold one event at once.
 */
import { type ClaimedEvent, DomainEvent, EventOutbox } from "@svc/domain/event"
import type { EventId } from "@svc/domain/Ids"
import { Effect, Layer, Schema } from "effect"
import type { ClientSession, Db, Document } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder } from "./MongoDocuments.ts"
import { isDuplicateKey } from "./MongoErrors.ts"
import { inUnitOr } from "./MongoTransaction.ts"

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
 * Numbers each event of a team with the team's next `sequence` (one atomic `$inc` per event, in `session` when
 * given, so the numbers commit with the events).
 */
const numbered = async (
  db: Db,
  events: ReadonlyArray<DomainEvent>,
  session?: ClientSession
): Promise<ReadonlyArray<DomainEvent>> => {
  const sequences = db.collection<{ _id: string; last: number }>(sequencesCollection)
  const out: Array<DomainEvent> = []
  for (const event of events) {
    const team = event.team_nanoid
    if (team === undefined) {
      out.push(event)
      continue
    }
    const doc = await sequences.findOneAndUpdate(
      { _id: team },
      { $inc: { last: 1 } },
      { upsert: true, returnDocument: "after", ...(session === undefined ? {} : { session }) }
    )
    out.push({ ...event, sequence: doc?.last ?? 1 })
  }
  return out
}

/** Appends `events` to the outbox in `session`'s transaction (a unit of work's), numbered in it (decision 0024). */
const appendInSession = async (db: Db, events: ReadonlyArray<DomainEvent>, session: ClientSession) => {
  if (events.length === 0) return
  await db
    .collection<OutboxDocument>(outboxCollection)
    .insertMany((await numbered(db, events, session)).map(outboxDocumentOf), { session })
}

const storedEventOf = documentDecoder(outboxCollection, Schema.Struct({ event: DomainEvent }))

const eventOf = (doc: Document | null): DomainEvent | undefined => (doc === null ? undefined : storedEventOf(doc).event)

/** When the oldest waiting event was made (`backlog` reads only it). */
const createdOf = documentDecoder(outboxCollection, Schema.Struct({ created: Schema.Number }))

/** The MongoDB outbox. */
export const layer = Layer.effect(
  EventOutbox,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<OutboxDocument>(outboxCollection)
    yield* Effect.promise(() => col.createIndex({ dispatched: 1, created: 1 }))
    const leases = Leases.on(col)
    const claimOne = (now: number, leaseMillis: number) =>
      Effect.promise(() =>
        leases.takeNext({ dispatched: false }, { sort: { created: 1, _id: 1 }, now, until: now + leaseMillis })
      ).pipe(
        Effect.map((taken) => {
          const event = eventOf(taken?.doc ?? null)
          return taken === null || event === undefined ? undefined : { event, lease: taken.lease }
        })
      )
    return EventOutbox.of({
      // A second append of the same id is ignored, and takes no sequence number (checked first, so the team's
      // numbers have no gap). In a unit of work, the events commit with its changes.
      append: (events) => {
        if (events.length === 0) return Effect.void
        const fresh = async (session?: ClientSession) => {
          const ids = events.map((e) => e.id)
          const known = await col
            .find({ _id: { $in: ids } }, { projection: { _id: 1 }, ...(session === undefined ? {} : { session }) })
            .toArray()
          return events.filter((e) => !known.some((d) => d._id === e.id))
        }
        return inUnitOr(
          (session) => Effect.promise(async () => appendInSession(db, await fresh(session), session)),
          Effect.promise(async () => {
            for (const event of await numbered(db, await fresh())) {
              await col.insertOne(outboxDocumentOf(event)).catch((again: unknown) => {
                if (!isDuplicateKey(again)) throw again
              })
            }
          })
        )
      },
      claim: ({ now, limit, leaseMillis }) =>
        Effect.gen(function* () {
          const claimed: Array<ClaimedEvent> = []
          while (claimed.length < limit) {
            const taken = yield* claimOne(now, leaseMillis)
            if (taken === undefined) break
            claimed.push(taken)
          }
          return claimed
        }),
      markDispatched: (id: EventId, token) =>
        Effect.promise(() => leases.whileHeld({ _id: id }, token, { $set: { dispatched: true } })).pipe(Effect.asVoid),
      findById: (id) => Effect.promise(() => col.findOne({ _id: id })).pipe(Effect.map(eventOf)),
      backlog: Effect.promise(async () => {
        const [count, oldest] = await Promise.all([
          col.countDocuments({ dispatched: false }),
          col.findOne({ dispatched: false }, { sort: { created: 1, _id: 1 }, projection: { created: 1 } })
        ])
        // `created` is the event's, in seconds.
        return { count, oldest: oldest === null ? undefined : createdOf(oldest).created * 1000 }
      })
    })
  })
)
