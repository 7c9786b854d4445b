/**
 * The outbox: events are written beside the state change that caused them, then fanned out to endpoints.
 */
import { Context, type Effect } from "effect"
import type { EventId } from "../Ids.ts"
import type { FencingToken, Lease } from "../Lease.ts"
import type { DomainEvent } from "./EventEnvelope.ts"

/** An event claimed for fan-out: the event, and the lease its holder marks it dispatched under. */
export interface ClaimedEvent {
  readonly event: DomainEvent
  readonly lease: Lease
}

/** What waits in a queue: how many, and since when the oldest (epoch ms), for metrics. */
export interface Backlog {
  readonly count: number
  readonly oldest?: number | undefined
}

/**
 * Recorded events awaiting fan-out. Implementations must keep an appended event until it is marked dispatched,
 * ignore a second append of the same id, and lease each claimed event to one worker at a time across machines.
 */
export class EventOutbox extends Context.Service<
  EventOutbox,
  {
    readonly append: (events: ReadonlyArray<DomainEvent>) => Effect.Effect<void>
    /** Undispatched events, oldest first, each leased until `now + leaseMillis` (epoch ms) under a new token. */
    readonly claim: (options: {
      readonly now: number
      readonly limit: number
      readonly leaseMillis: number
    }) => Effect.Effect<ReadonlyArray<ClaimedEvent>>
    /** Marks the event dispatched, while `token` is its lease's current one (else nothing changes). */
    readonly markDispatched: (id: EventId, token: FencingToken) => Effect.Effect<void>
    readonly findById: (id: EventId) => Effect.Effect<DomainEvent | undefined>
    /** The undispatched events: how many, and when the oldest was recorded, in epoch ms (the outbox's lag). */
    readonly backlog: Effect.Effect<Backlog>
  }
>()("@svc/domain/event/EventOutbox") {}
