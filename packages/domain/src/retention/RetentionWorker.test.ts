import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { invitesBody } from "../../test/InviteKit.ts"
import { outboxEvents, seedTeam, teamUseCases } from "../../test/UseCaseKit.ts"
import { EventOutbox, makeDomainEvent } from "../event/index.ts"
import type { TeamId } from "../Ids.ts"
import { createInvites } from "../invite/CreateInvites.ts"
import { MailOutbox } from "../mail/MailOutbox.ts"
import type { Caller } from "../user/Caller.ts"
import { defaultRetention, RetentionStore, type RetentionWindows } from "./Retention.ts"
import * as RetentionWorker from "./RetentionWorker.ts"

const day = 24 * 60 * 60 * 1000
const start = Date.parse("2026-01-01T00:00:00.000Z")
const keepForEver: RetentionWindows = { events: 0, deliveries: 0, requests: 0, mails: 0, transactions: 0 }
const nothing = { events: 0, deliveries: 0, requests: 0, mails: 0, transactions: 0 }

/** `n` events of the team appended now, and whether the dispatcher took them (`dispatched`). */
const events = (team: TeamId, n: number, dispatched: boolean) =>
  Effect.gen(function* () {
    const made = yield* Effect.forEach(Array.from({ length: n }), () =>
      makeDomainEvent({ event_type: "payment.sent", team_nanoid: team, data: { n } })
    )
    yield* EventOutbox.use((o) => o.append(made))
    if (dispatched) {
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* EventOutbox.use((o) => o.claim({ now, limit: 1000, leaseMillis: 1 }))
      for (const { event, lease } of claimed) {
        if (made.some((e) => e.id === event.id)) yield* EventOutbox.use((o) => o.markDispatched(event.id, lease.token))
      }
    }
    return made.map((e) => e.id)
  })

/** Invite mails to `emails` queued now; sent at once unless `sent` is false (others due are left queued). */
const mails = (admin: Caller, team: TeamId, emails: ReadonlyArray<string>, sent = true) =>
  Effect.gen(function* () {
    yield* createInvites(admin, invitesBody(team, emails))
    if (!sent) return []
    const now = yield* Clock.currentTimeMillis
    const claimed = (yield* MailOutbox.use((o) => o.claim({ now, limit: 100, leaseMillis: 1000 }))).filter((c) =>
      emails.includes(c.mail.to)
    )
    yield* Effect.forEach(claimed, (c) => MailOutbox.use((o) => o.markSent(c.mail.id, c.lease.token)))
    return claimed.map((c) => c.mail.id)
  })

/** The outbox state of each mail. */
const statesOf = (ids: ReadonlyArray<string>) => Effect.forEach(ids, (id) => MailOutbox.use((o) => o.stateOf(id)))

describe("RetentionWorker.pruneOnce", () => {
  it.effect(
    "prunes what is done and older than its window; keeps the recent, the pending and what is kept for ever",
    () =>
      Effect.gen(function* () {
        const { team, admin } = yield* seedTeam
        yield* TestClock.setTime(start)
        yield* events(team, 3, true)
        const waiting = yield* events(team, 1, false)
        const old = yield* mails(admin, team, ["a@team.example", "b@team.example"])
        yield* mails(admin, team, ["queued@team.example"], false)
        yield* TestClock.adjust(8 * day)
        const recent = yield* events(team, 2, true)
        const fresh = yield* mails(admin, team, ["c@team.example"])
        let held: RetentionWorker.PruneHeld
        const once = (windows: RetentionWindows) =>
          Effect.map(RetentionWorker.pruneOnce({ windows, leaseMillis: 60_000 }, held), ({ pruned, token }) => {
            held = token
            return pruned
          })
        // Windows of 0 keep everything.
        assert.deepStrictEqual(yield* once(keepForEver), nothing)
        assert.deepStrictEqual(yield* once({ ...keepForEver, mails: 9 * day }), nothing)
        // A week of events and mails: the older dispatched events and sent mails go; only they.
        assert.deepStrictEqual(yield* once(defaultRetention), { ...nothing, events: 3, mails: 2 })
        assert.deepStrictEqual(yield* once(defaultRetention), nothing)
        assert.deepStrictEqual(yield* statesOf([...old, ...fresh]), [undefined, undefined, "sent"])
        // The event never dispatched and the mail never sent are still there, as are the recent ones.
        assert.deepStrictEqual(
          (yield* outboxEvents).map((e) => e.id),
          waiting
        )
        yield* TestClock.adjust(2000)
        assert.deepStrictEqual(yield* once({ ...keepForEver, events: 1000 }), { ...nothing, events: recent.length })
        const now = yield* Clock.currentTimeMillis
        const queued = yield* MailOutbox.use((o) => o.claim({ now, limit: 100, leaseMillis: 1 }))
        assert.deepStrictEqual(
          queued.map((c) => c.mail.to),
          ["queued@team.example"]
        )
      }).pipe(Effect.provide(teamUseCases))
  )

  it.effect(
    "one holder of the lease at a time: another prunes nothing until it lapses; a stale token prunes nothing",
    () =>
      Effect.gen(function* () {
        const { team } = yield* seedTeam
        yield* TestClock.setTime(start)
        yield* events(team, 2, true)
        yield* TestClock.adjust(8 * day)
        const pass = (held: RetentionWorker.PruneHeld, windows = defaultRetention) =>
          RetentionWorker.pruneOnce({ windows, leaseMillis: 60_000 }, held)
        // "a" takes the lease (pruning nothing: its windows keep everything); "b" may not prune meanwhile.
        const a = yield* pass(undefined, keepForEver)
        assert.deepStrictEqual(a.pruned, nothing)
        assert.isDefined(a.token)
        assert.deepStrictEqual(yield* pass(undefined), { pruned: nothing, token: undefined })
        // The holder keeps it across passes, under the same token.
        yield* TestClock.adjust(30_000)
        assert.strictEqual((yield* pass(a.token, keepForEver)).token, a.token)
        yield* TestClock.adjust(59_000)
        assert.deepStrictEqual(yield* pass(undefined), { pruned: nothing, token: undefined })
        // Once "a"'s lease lapses, "b" takes it under a larger token and prunes; "a"'s token no longer prunes.
        yield* TestClock.adjust(1_000)
        const b = yield* pass(undefined)
        assert.deepStrictEqual(b.pruned, { ...nothing, events: 2 })
        assert.isAbove(b.token ?? 0, a.token ?? 0)
        yield* events(team, 1, true)
        yield* TestClock.adjust(8 * day)
        assert.deepStrictEqual(
          yield* RetentionStore.use((store) => store.prune("events", Date.now() + 100 * day, 10, a.token as never)),
          0
        )
      }).pipe(Effect.provide(teamUseCases))
  )

  it.effect("prunes in batches until caught up, at most `maxBatches` a kind a pass", () =>
    Effect.gen(function* () {
      const { team } = yield* seedTeam
      yield* TestClock.setTime(start)
      yield* events(team, 7, true)
      yield* TestClock.adjust(8 * day)
      let held: RetentionWorker.PruneHeld
      const pass = (maxBatches?: number) =>
        RetentionWorker.pruneOnce({ windows: defaultRetention, leaseMillis: 60_000, batch: 2, maxBatches }, held).pipe(
          Effect.map(({ pruned, token }) => {
            held = token
            return pruned
          })
        )
      assert.deepStrictEqual(yield* pass(2), { ...nothing, events: 4 })
      assert.deepStrictEqual(yield* pass(), { ...nothing, events: 3 })
      assert.deepStrictEqual(yield* pass(), nothing)
    }).pipe(Effect.provide(teamUseCases))
  )
})

describe("RetentionWorker.layer", () => {
  it.effect("passes every `every` while its scope lives", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      yield* TestClock.setTime(start)
      const sent = yield* mails(admin, team, ["a@team.example"])
      yield* TestClock.adjust(7 * day - 5 * 60_000)
      yield* Layer.build(RetentionWorker.layer({ windows: defaultRetention }))
      // The first pass, at once, finds the mail within its week; the next, ten minutes on, past it.
      yield* TestClock.adjust(1)
      assert.deepStrictEqual(yield* statesOf(sent), ["sent"])
      yield* TestClock.adjust(10 * 60_000)
      assert.deepStrictEqual(yield* statesOf(sent), [undefined])
    }).pipe(Effect.scoped, Effect.provide(teamUseCases))
  )
})
