/**
 * The contract of `EventOutbox`: an event is kept once, whatever the appends, until it is marked dispatched; claims
 * hand out the oldest undispatched events, each to one worker at a time until its lease expires, under a fencing token
 * that grows with each taking; only the current token marks an event dispatched.
 */
import { assert, describe, it } from "@effect/vitest"
import { EventOutbox } from "@svc/domain/event"
import { Effect } from "effect"
import { event } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

/** Registers the suite for `storage`. */
export const eventOutboxContract = (storage: StorageUnderTest) =>
  describe(`EventOutbox (${storage.name})`, () => {
    it.live("a second append of an event is ignored; events are found by id as appended", () =>
      Effect.gen(function* () {
        const outbox = yield* EventOutbox
        yield* outbox.append([event(20), event(21)])
        yield* outbox.append([{ ...event(20), data: { n: "again" } }, event(22)])
        yield* outbox.append([])
        assert.deepStrictEqual((yield* outbox.findById(event(20).id))?.data, { n: 20 })
        assert.isDefined(yield* outbox.findById(event(22).id))
        assert.isUndefined(yield* outbox.findById(event(23).id))
        const claimed = yield* outbox.claim({ now: 1, limit: 10, leaseMillis: 1000 })
        assert.deepStrictEqual(
          claimed.map((c) => c.event.id),
          [event(20).id, event(21).id, event(22).id]
        )
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("each event is leased to one worker until it expires, oldest first; dispatched events are done", () =>
      Effect.gen(function* () {
        const outbox = yield* EventOutbox
        // Appended out of order: claims go by creation time.
        yield* outbox.append([event(23), event(21), event(22), event(20)])
        const now = Date.now()
        const [a, b] = yield* Effect.all(
          [outbox.claim({ now, limit: 2, leaseMillis: 1000 }), outbox.claim({ now, limit: 2, leaseMillis: 1000 })],
          { concurrency: "unbounded" }
        )
        const first = [...(a ?? []), ...(b ?? [])]
        const ids = first.map((c) => c.event.id).sort()
        const tokenOf = (n: number) => first.find((c) => c.event.id === event(n).id)?.lease.token ?? (0 as never)
        // The backlog counts undispatched events, leased or not, and dates the oldest.
        assert.deepStrictEqual(yield* outbox.backlog, { count: 4, oldest: event(20).created * 1000 })
        assert.deepStrictEqual(ids, [event(20).id, event(21).id, event(22).id, event(23).id])
        assert.deepStrictEqual(yield* outbox.claim({ now: now + 999, limit: 10, leaseMillis: 1000 }), [])
        // A token that is not the event's current one marks nothing.
        yield* outbox.markDispatched(event(21).id, (tokenOf(21) + 1) as never)
        yield* outbox.markDispatched(event(20).id, tokenOf(20))
        yield* outbox.markDispatched(event(22).id, tokenOf(22))
        const afterLease = yield* outbox.claim({ now: now + 1000, limit: 1, leaseMillis: 1000 })
        assert.deepStrictEqual(
          afterLease.map((c) => c.event.id),
          [event(21).id]
        )
        assert.isAbove(afterLease[0]?.lease.token ?? 0, tokenOf(21))
        // Its first worker, paused past its lease, marks nothing now.
        yield* outbox.markDispatched(event(21).id, tokenOf(21))
        const rest = yield* outbox.claim({ now: now + 1000, limit: 10, leaseMillis: 1000 })
        assert.deepStrictEqual(
          rest.map((c) => c.event.id),
          [event(23).id]
        )
        assert.deepStrictEqual(yield* outbox.backlog, { count: 2, oldest: event(21).created * 1000 })
        // Dispatched events stay readable.
        assert.isDefined(yield* outbox.findById(event(20).id))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("of ten concurrent workers claiming one event at a time, each event goes to exactly one", () =>
      Effect.gen(function* () {
        const outbox = yield* EventOutbox
        yield* outbox.append(Array.from({ length: 15 }, (_, i) => event(i + 1)))
        const now = Date.now()
        const claims = yield* Effect.all(
          Array.from({ length: 10 }, (_, worker) => outbox.claim({ now, limit: 2 + 0 * worker, leaseMillis: 60_000 })),
          { concurrency: "unbounded" }
        )
        const ids = claims.flat().map((c) => c.event.id)
        assert.strictEqual(ids.length, 15)
        assert.strictEqual(new Set(ids).size, 15)
      }).pipe(Effect.provide(storage.layer()))
    )
  })
