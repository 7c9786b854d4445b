import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { outboxEvents, seedTeam, seedTeamAt, webhookBody, webhookUseCases } from "../../test/UseCaseKit.ts"
import { type EmittedEventType, EventOutbox, type EventType, makeDomainEvent } from "../event/index.ts"
import type { TeamId, WebhookId } from "../Ids.ts"
import type { Caller } from "../user/Caller.ts"
import { createWebhook } from "./CreateWebhook.ts"
import { fanOutEvents } from "./FanOut.ts"
import { WebhookDeliveryStore, WebhookEndpointRepository } from "./WebhookRepository.ts"

const fanOut = fanOutEvents({ leaseMillis: 60_000 })

/** An endpoint of `team` for `events`, made by `admin`. */
const endpointFor = (admin: Caller, team: TeamId, events: ReadonlyArray<EventType>, host = "hooks.example.com") =>
  Effect.map(
    createWebhook(admin, webhookBody(team, `https://${host}/svc`, events)),
    (created) => created.webhook_nanoid as WebhookId
  )

/** Events of `type` for `team` (none: without a team) in the outbox; answers them. */
const record = (n: number, type: EmittedEventType, team?: TeamId) =>
  Effect.gen(function* () {
    const events = yield* Effect.forEach(Array.from({ length: n }), (_, i) =>
      makeDomainEvent({ event_type: type, ...(team === undefined ? {} : { team_nanoid: team }), data: { i } })
    )
    yield* EventOutbox.use((o) => o.append(events))
    return events
  })

const deliveriesOf = (endpoint: WebhookId) => WebhookDeliveryStore.use((d) => d.list(endpoint, { limit: 1000 }))

describe("fanOutEvents", () => {
  it.effect("makes one delivery of an event per active endpoint of its team subscribed to its kind, due now", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      const other = yield* seedTeamAt(1)
      const books = yield* endpointFor(admin, team, ["payment.sent"])
      const all = yield* endpointFor(admin, team, ["payment.sent", "payment.failed"], "all.example.com")
      const failures = yield* endpointFor(admin, team, ["payment.failed"], "failures.example.com")
      const disabled = yield* endpointFor(admin, team, ["payment.sent"], "off.example.com")
      yield* WebhookEndpointRepository.use((e) => e.transition(disabled, "active", "disabled", {}))
      const elsewhere = yield* endpointFor(other.admin, other.team, ["payment.sent"], "other.example.com")
      yield* TestClock.setTime(Date.parse("2026-03-01T10:00:00.000Z"))
      const [sent] = yield* record(1, "payment.sent", team)
      assert.strictEqual(yield* fanOut, 1)
      for (const endpoint of [failures, disabled, elsewhere]) assert.deepStrictEqual(yield* deliveriesOf(endpoint), [])
      for (const endpoint of [books, all]) {
        const [delivery, ...more] = yield* deliveriesOf(endpoint)
        assert.deepStrictEqual(more, [])
        // The event as recorded (the outbox numbers it).
        assert.deepStrictEqual(delivery?.event, { ...sent, sequence: 1 } as typeof sent)
        assert.strictEqual(delivery?.team_nanoid, team)
        assert.strictEqual(delivery?.status, "pending")
        assert.strictEqual(delivery?.attempts, 0)
        assert.strictEqual(delivery?.next_attempt_at, Date.parse("2026-03-01T10:00:00.000Z"))
        assert.deepStrictEqual(delivery?.attempt_log, [])
      }
      // Dispatched: the event is not claimed again, and the next fan-out has nothing to do.
      assert.deepStrictEqual(yield* outboxEvents, [])
      assert.strictEqual(yield* fanOut, 0)
      assert.strictEqual((yield* deliveriesOf(books)).length, 1)
    }).pipe(Effect.provide(webhookUseCases))
  )

  it.effect("an event no endpoint subscribes to, or of no team, is dispatched with no delivery", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      const books = yield* endpointFor(admin, team, ["payment.sent"])
      yield* record(1, "payment.failed", team)
      yield* record(1, "payment.sent")
      assert.strictEqual(yield* fanOut, 2)
      assert.deepStrictEqual(yield* deliveriesOf(books), [])
      assert.deepStrictEqual(yield* outboxEvents, [])
    }).pipe(Effect.provide(webhookUseCases))
  )

  it.effect("takes up to 100 events a pass, oldest first; the rest on the next", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      const books = yield* endpointFor(admin, team, ["payment.sent"])
      const events = yield* record(130, "payment.sent", team)
      assert.strictEqual(yield* fanOut, 100)
      const first = yield* deliveriesOf(books)
      assert.deepStrictEqual(
        first.map((d) => d.event.id).sort(),
        events
          .slice(0, 100)
          .map((e) => e.id)
          .sort()
      )
      assert.strictEqual(yield* fanOut, 30)
      assert.strictEqual((yield* deliveriesOf(books)).length, 130)
      assert.strictEqual(yield* fanOut, 0)
    }).pipe(Effect.provide(webhookUseCases))
  )

  it.effect("an event another worker holds is left to it until its lease lapses", () =>
    Effect.gen(function* () {
      const { team, admin } = yield* seedTeam
      const books = yield* endpointFor(admin, team, ["payment.sent"])
      yield* record(1, "payment.sent", team)
      const now = Date.parse("2026-03-01T10:00:00.000Z")
      yield* TestClock.setTime(now)
      yield* EventOutbox.use((o) => o.claim({ now, limit: 10, leaseMillis: 30_000 }))
      assert.strictEqual(yield* fanOut, 0)
      // The other worker died: once its lease lapses the event is fanned out here, once.
      yield* TestClock.adjust(30_000)
      assert.strictEqual(yield* fanOut, 1)
      assert.strictEqual((yield* deliveriesOf(books)).length, 1)
    }).pipe(Effect.provide(webhookUseCases))
  )
})
