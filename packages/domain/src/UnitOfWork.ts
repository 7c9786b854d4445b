/**
 * The unit of work: a use case's changes through the storage ports, and the events it appends to the outbox, commit
 * together or not at all (decision 0080).
 */
import { Context, Effect } from "effect"
import type { DomainEvent } from "./event/EventEnvelope.ts"
import { EventOutbox } from "./event/EventOutbox.ts"

/**
 * Runs an effect as one transaction of the storage adapter. Everything it writes through the storage ports and every
 * event it appends (`EventOutbox.append`) commits when it succeeds, and none of it when it fails or dies. A unit run
 * inside another joins it: its changes commit or roll back with the outer unit, so an inner failure the outer one
 * recovers from does not undo the inner unit's changes.
 *
 * Put only storage work in a unit, decided from what it reads and writes: no chain calls, HTTP or waiting. SQLite runs
 * the unit synchronously, holding the process's connection (an asynchronous step inside is a defect); MongoDB runs it
 * again from the start when its transaction meets a write conflict or loses its primary (decision 0096), so it must
 * do nothing but storage work, which the aborted transaction undoes.
 *
 * @example
 * yield* UnitOfWork.use((unit) =>
 *   unit.run(Effect.gen(function* () {
 *     if (yield* memberships.remove(team, user)) yield* outbox.append([removed])
 *   }))
 * )
 */
export class UnitOfWork extends Context.Service<
  UnitOfWork,
  {
    readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  }
>()("@svc/domain/UnitOfWork") {}

/**
 * `change` and the events that report it in one unit of work: `eventsOf` reads what the change answered (none when
 * nothing changed), and a change that fails appends nothing.
 */
export const withEvents = <A, E, R>(
  change: Effect.Effect<A, E, R>,
  eventsOf: (changed: A) => ReadonlyArray<DomainEvent>
): Effect.Effect<A, E, R | UnitOfWork | EventOutbox> =>
  UnitOfWork.use((unit) =>
    unit.run(
      Effect.tap(change, (changed) => {
        const events = eventsOf(changed)
        return events.length === 0 ? Effect.void : EventOutbox.use((outbox) => outbox.append(events))
      })
    )
  )
