/**
 * The event outbox in SQLite (`event_outbox`, one row per event id). Use cases append events in the unit of work of
 * the change they report (decision 0080), so both commit together; a dispatcher leases undispatched events, oldest
 * first, in one statement (`Leases.takeMany`), so two workers never hold one event at once, and marks one dispatched
 * only under its lease's fencing token.
 */
import type { DatabaseSync } from "node:sqlite"
import { DomainEvent, EventOutbox } from "@svc/domain/event"
import { Effect, Layer } from "effect"
import * as Leases from "./Leases.ts"
import * as RowDecoder from "./RowDecoder.ts"
import { backlogOf, SqliteDatabase } from "./SqliteDatabase.ts"

/**
 * Appends events on `connection`, ignoring ids already there. Each event of a team gets the team's next `sequence`
 * number; call it inside a transaction, so the numbers and the events commit together.
 */
const appendOn = (connection: DatabaseSync) => {
  const insert = connection.prepare(
    `INSERT INTO event_outbox (id, created, team_nanoid, event)
     VALUES (?, ?, ?, ?)`
  )
  const exists = connection.prepare("SELECT 1 FROM event_outbox WHERE id = ?")
  const nextSequence = connection.prepare(
    `INSERT INTO team_event_sequences (team_nanoid, last) VALUES (?, 1)
     ON CONFLICT (team_nanoid) DO UPDATE SET last = last + 1 RETURNING last`
  )
  return (events: ReadonlyArray<DomainEvent>) => {
    for (const event of events) {
      // Checked before a number is taken: an ignored duplicate must leave no gap in the team's sequence.
      if (exists.get(event.id) !== undefined) continue
      const team = event.team_nanoid
      const stored: DomainEvent =
        team === undefined ? event : { ...event, sequence: Number(nextSequence.get(team)?.last) }
      insert.run(event.id, event.created, team ?? null, JSON.stringify(stored))
    }
  }
}

const eventOf = RowDecoder.records("event_outbox", DomainEvent, RowDecoder.smallMemoSize)

/** The SQLite outbox. */
export const layer = Layer.effect(
  EventOutbox,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const append = appendOn(connection)
    const leases = Leases.on(connection, { table: "event_outbox", row: "id = :id", key: "id" })
    const claim = leases.takeMany({
      when: "dispatched = 0",
      order: "created, id",
      returning: "id, created, event"
    })
    const markDispatched = leases.whileHeld({ set: "dispatched = 1" })
    const find = connection.prepare("SELECT event FROM event_outbox WHERE id = ?")
    // `created` is the event's, in seconds: the backlog dates in milliseconds.
    const backlog = connection.prepare(
      "SELECT count(*) AS n, min(created) * 1000 AS oldest FROM event_outbox WHERE dispatched = 0"
    )
    return EventOutbox.of({
      append: (events) => Effect.sync(() => transaction(() => append(events))),
      claim: ({ now, limit, leaseMillis }) =>
        Effect.sync(() =>
          claim({ now, until: now + leaseMillis, limit })
            .sort((a, b) => Number(a.created) - Number(b.created) || (String(a.id) < String(b.id) ? -1 : 1))
            .map((row) => ({
              event: eventOf(row.event, String(row.id)),
              lease: Leases.leaseOf(row, now + leaseMillis)
            }))
        ),
      markDispatched: (id, token) => Effect.sync(() => void markDispatched({ id, token })),
      findById: (id) =>
        Effect.sync(() => {
          const row = find.get(id)
          return row === undefined ? undefined : eventOf(row.event, id)
        }),
      backlog: Effect.sync(() => backlogOf(backlog.get()))
    })
  })
)
