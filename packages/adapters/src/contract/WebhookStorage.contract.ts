/**
 * The contract of the webhook storage ports: endpoints (filtered subscriptions, patches, conditional transitions),
 * the delivery log (one delivery per event and endpoint, due deliveries leased to one holder, attempts applied only
 * by the holder, pages newest first, replay), per-team event sequence numbers, and membership changes that write
 * their events with them.
 */
import { assert, describe, it } from "@effect/vitest"
import { EventOutbox } from "@svc/domain/event"
import type { DeliveryId, WebhookId } from "@svc/domain/Ids"
import { MembershipRepository } from "@svc/domain/membership"
import { withEvents } from "@svc/domain/UnitOfWork"
import {
  type WebhookDelivery,
  WebhookDeliveryStore,
  type WebhookEndpointRecord,
  WebhookEndpointRepository
} from "@svc/domain/webhook"
import { Effect } from "effect"
import { companyId, event, membership, teamId, userId } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

const digits = (n: number) => String(n).padStart(12, "0")
const webhookId = (n: number) => `wh-${digits(n)}` as WebhookId
const deliveryId = (n: number) => `dl-${digits(n)}` as DeliveryId

const endpoint = (n: number, events: WebhookEndpointRecord["events"] = ["payment.sent"]): WebhookEndpointRecord => ({
  nanoid: webhookId(n),
  company_nanoid: companyId(1),
  team_nanoid: teamId(1),
  url: `https://hooks.example/${n}`,
  events,
  state: "active",
  name: `hook ${n}`,
  description: "",
  version: 2,
  secrets: [{ sealed: `sealed-${n}` }],
  created_at: `2026-01-01T00:00:0${n}.000Z`,
  updated_at: `2026-01-01T00:00:0${n}.000Z`
})

const delivery = (n: number, options: { readonly event?: number; readonly at?: number } = {}): WebhookDelivery => ({
  nanoid: deliveryId(n),
  webhook_nanoid: webhookId(1),
  team_nanoid: teamId(1),
  event: event(options.event ?? n),
  status: "pending",
  attempts: 0,
  next_attempt_at: options.at ?? 1_000 + n,
  created_at: 1_000 + n,
  updated_at: 1_000 + n
})

/** Registers the suite for `storage`. */
export const webhookStorageContract = (storage: StorageUnderTest) =>
  describe(`webhook storage (${storage.name})`, () => {
    it.live("endpoints: listed per team, subscribed when active and listing the kind, patched, moved, deleted", () =>
      Effect.gen(function* () {
        const endpoints = yield* WebhookEndpointRepository
        yield* endpoints.insert(endpoint(2, ["payment.sent", "team.member_added"]))
        yield* endpoints.insert(endpoint(1))
        yield* endpoints.insert({ ...endpoint(3), team_nanoid: teamId(2) })
        assert.deepStrictEqual(
          (yield* endpoints.listByTeam(teamId(1))).map((e) => e.nanoid),
          [webhookId(1), webhookId(2)]
        )
        assert.deepStrictEqual(
          yield* endpoints.findById(webhookId(2)),
          endpoint(2, ["payment.sent", "team.member_added"])
        )
        assert.strictEqual((yield* Effect.flip(endpoints.findById(webhookId(9))))._tag, "WebhookNotFound")
        assert.deepStrictEqual(
          (yield* endpoints.subscribed(teamId(1), "team.member_added")).map((e) => e.nanoid),
          [webhookId(2)]
        )
        const failing = yield* endpoints.update(webhookId(1), { failing_since: "2026-01-02T00:00:00.000Z", name: "x" })
        assert.strictEqual(failing.failing_since, "2026-01-02T00:00:00.000Z")
        assert.strictEqual(failing.name, "x")
        const cleared = yield* endpoints.update(webhookId(1), { unset: ["failing_since"] })
        assert.isUndefined(cleared.failing_since)
        const off = yield* withEvents(
          endpoints.transition(webhookId(1), "active", "disabled", { disabled_at: "2026-01-03T00:00:00.000Z" }),
          () => [event(30, "webhook.endpoint.disabled")]
        )
        // In a unit of work, the transition's events are in the outbox with it; a refused transition appends none.
        const outbox = yield* EventOutbox
        assert.strictEqual((yield* outbox.findById(event(30).id))?.event_type, "webhook.endpoint.disabled")
        assert.strictEqual(off.state, "disabled")
        assert.strictEqual(off.disabled_at, "2026-01-03T00:00:00.000Z")
        const stale = yield* Effect.flip(
          withEvents(endpoints.transition(webhookId(1), "active", "disabled", {}), () => [
            event(31, "webhook.endpoint.disabled")
          ])
        )
        assert.strictEqual(stale._tag, "StaleState")
        assert.isUndefined(yield* outbox.findById(event(31).id))
        assert.deepStrictEqual(
          (yield* endpoints.subscribed(teamId(1), "payment.sent")).map((e) => e.nanoid),
          [webhookId(2)]
        )
        assert.isTrue(yield* endpoints.delete(webhookId(2)))
        assert.isFalse(yield* endpoints.delete(webhookId(2)))
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("deliveries: one per event and endpoint, leased to one holder, attempts recorded by the holder only", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        yield* store.enqueue([delivery(1), delivery(2), delivery(3, { at: 5_000 })])
        // The same event and endpoint again, under another id: ignored.
        yield* store.enqueue([{ ...delivery(4, { event: 1 }) }])
        assert.isUndefined(yield* store.findById(deliveryId(4)))
        assert.deepStrictEqual(yield* store.backlog, { count: 3, oldest: 1_001 })
        const [a, b] = yield* Effect.all(
          [
            store.claimDue({ now: 2_000, limit: 10, leaseMillis: 1_000 }),
            store.claimDue({ now: 2_000, limit: 10, leaseMillis: 1_000 })
          ],
          { concurrency: "unbounded" }
        )
        const claimed = [...(a ?? []), ...(b ?? [])]
        assert.deepStrictEqual(claimed.map((c) => c.delivery.nanoid).sort(), [deliveryId(1), deliveryId(2)])
        const first = claimed.find((c) => c.delivery.nanoid === deliveryId(1))
        assert.isDefined(first)
        if (first === undefined) return
        assert.deepStrictEqual(first.delivery.event, event(1))
        // Lapsed: another holder takes it; the first holder's attempt then changes nothing.
        const again = yield* store.claimDue({ now: 3_000, limit: 1, leaseMillis: 1_000 })
        assert.strictEqual(again[0]?.delivery.nanoid, deliveryId(1))
        const attempt = { delivery_nanoid: deliveryId(1), number: 1, at: 3_000, status_code: 500, duration_ms: 12 }
        assert.isAbove(again[0]?.lease.token ?? 0, first.lease.token)
        const late = yield* store.record(deliveryId(1), first.lease.token, {
          attempt: { ...attempt, error: "HTTP 500" },
          status: "pending",
          next_attempt_at: 9_000,
          first_attempt_at: 3_000,
          at: 3_100
        })
        assert.isFalse(late)
        const token = again[0]?.lease.token ?? (0 as never)
        assert.isTrue(
          yield* store.record(deliveryId(1), token, {
            attempt: { ...attempt, error: "HTTP 500" },
            status: "pending",
            next_attempt_at: 9_000,
            first_attempt_at: 3_000,
            at: 3_100
          })
        )
        const retried = yield* store.findById(deliveryId(1))
        assert.strictEqual(retried?.attempts, 1)
        assert.strictEqual(retried?.next_attempt_at, 9_000)
        assert.deepStrictEqual(retried?.attempt_log, [{ ...attempt, error: "HTTP 500" }])
        // Not due before 9 000 (the others are: 2's lease lapsed unrecorded, as a dead holder's would); then delivered.
        assert.deepStrictEqual(
          (yield* store.claimDue({ now: 8_999, limit: 10, leaseMillis: 1_000 })).map((c) => c.delivery.nanoid).sort(),
          [deliveryId(2), deliveryId(3)]
        )
        const due = yield* store.claimDue({ now: 9_000, limit: 10, leaseMillis: 1_000 })
        assert.deepStrictEqual(
          due.map((c) => c.delivery.nanoid),
          [deliveryId(1)]
        )
        yield* store.record(deliveryId(1), due[0]?.lease.token ?? (0 as never), {
          attempt: { delivery_nanoid: deliveryId(1), number: 2, at: 9_000, status_code: 204, duration_ms: 3 },
          status: "succeeded",
          first_attempt_at: 3_000,
          at: 9_010
        })
        const done = yield* store.findById(deliveryId(1))
        assert.strictEqual(done?.status, "succeeded")
        assert.deepStrictEqual(yield* store.backlog, { count: 2, oldest: 1_002 })
        assert.deepStrictEqual(
          done?.attempt_log.map((x) => [x.number, x.status_code, x.error]),
          [
            [1, 500, "HTTP 500"],
            [2, 204, undefined]
          ]
        )
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "an attempt keeps the start of the receiver's answer as it came, cut or whole; none without an answer",
      () =>
        Effect.gen(function* () {
          const store = yield* WebhookDeliveryStore
          yield* store.enqueue([delivery(1)])
          // Text as the receiver sent it: markup, quotes, NUL and other controls, a replaced byte, astral characters.
          const text = `<p onclick="x">\u0000\u001b[2J\r\n\uFFFD 'é' 😀</p>`
          const answers = [
            { status_code: 500, error: "HTTP 500", response_body: { text, truncated: false } },
            { status_code: 503, error: "HTTP 503", response_body: { text: "x".repeat(2_048), truncated: true } },
            { error: "no answer within 15000 ms" },
            { status_code: 204, response_body: { text: "", truncated: false } }
          ]
          for (const [index, answer] of answers.entries()) {
            const [claimed] = yield* store.claimDue({ now: 10_000 * (index + 1), limit: 1, leaseMillis: 1_000 })
            const number = index + 1
            yield* store.record(deliveryId(1), claimed?.lease.token ?? (0 as never), {
              attempt: { delivery_nanoid: deliveryId(1), number, at: 10_000 * number, duration_ms: number, ...answer },
              status: number === answers.length ? "succeeded" : "pending",
              next_attempt_at: 10_000 * (number + 1),
              at: 10_000 * number
            })
          }
          const [logged] = yield* store.list(webhookId(1), { limit: 1 })
          assert.deepStrictEqual(
            logged?.attempt_log.map((a) => [a.number, a.status_code, a.response_body]),
            answers.map((a, index) => [index + 1, a.status_code, a.response_body])
          )
          assert.deepStrictEqual((yield* store.findById(deliveryId(1)))?.attempt_log, logged?.attempt_log)
        }).pipe(Effect.provide(storage.layer()))
    )

    it.live("the log pages newest first; failed deliveries are re-queued one at a time or since a time", () =>
      Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        yield* store.enqueue([1, 2, 3, 4, 5].map((n) => delivery(n)))
        const claimed = yield* store.claimDue({ now: 10_000, limit: 10, leaseMillis: 1_000 })
        for (const { delivery: d, lease } of claimed) {
          yield* store.record(d.nanoid, lease.token, { status: "failed", at: 10_000 + Number(d.nanoid.slice(-1)) })
        }
        const first = yield* store.list(webhookId(1), { limit: 2 })
        assert.deepStrictEqual(
          first.map((d) => d.nanoid),
          [deliveryId(5), deliveryId(4)]
        )
        const last = first[1]
        const next = yield* store.list(webhookId(1), {
          limit: 10,
          before: { created_at: last?.created_at ?? 0, nanoid: deliveryId(4) }
        })
        assert.deepStrictEqual(
          next.map((d) => d.nanoid),
          [deliveryId(3), deliveryId(2), deliveryId(1)]
        )
        assert.isTrue(yield* store.requeue(deliveryId(1), 20_000))
        assert.isFalse(yield* store.requeue(deliveryId(9), 20_000))
        assert.deepStrictEqual(
          (yield* store.list(webhookId(1), { status: "pending", limit: 10 })).map((d) => d.nanoid),
          [deliveryId(1)]
        )
        assert.strictEqual(yield* store.requeueFailed(webhookId(1), { since: 1_004, by: "created", now: 20_000 }), 2)
        assert.strictEqual(yield* store.requeueFailed(webhookId(1), { since: 10_003, by: "updated", now: 20_000 }), 1)
        assert.deepStrictEqual(
          (yield* store.list(webhookId(1), { status: "failed", limit: 10 })).map((d) => d.nanoid),
          [deliveryId(2)]
        )
        const due = yield* store.claimDue({ now: 20_000, limit: 10, leaseMillis: 1_000 })
        assert.strictEqual(due.length, 4)
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("events of a team are numbered 1, 2, 3 ... as appended; a duplicate takes no number", () =>
      Effect.gen(function* () {
        const outbox = yield* EventOutbox
        yield* outbox.append([event(1), event(2)])
        yield* outbox.append([event(2), event(3), { ...event(4), team_nanoid: teamId(2) }])
        const claimed = yield* outbox.claim({ now: 1, limit: 10, leaseMillis: 1_000 })
        assert.deepStrictEqual(
          claimed.map(({ event: e }) => [e.id, e.team_nanoid, e.sequence]),
          [
            [event(1).id, teamId(1), 1],
            [event(2).id, teamId(1), 2],
            [event(3).id, teamId(1), 3],
            [event(4).id, teamId(2), 1]
          ]
        )
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live(
      "in a unit of work, a member added or removed writes its events with the change, only when it changed",
      () =>
        Effect.gen(function* () {
          const memberships = yield* MembershipRepository
          const outbox = yield* EventOutbox
          const m = membership(1, teamId(1), userId(1), "team_admin")
          yield* withEvents(memberships.insert(m), () => [event(1, "team.member_added")])
          yield* Effect.flip(
            withEvents(
              memberships.insert({ ...m, nanoid: membership(2, teamId(1), userId(1), "team_admin").nanoid }),
              () => [event(2, "team.member_added")]
            )
          )
          const removal = (n: number) =>
            withEvents(memberships.remove(teamId(1), userId(1)), (removed) =>
              removed ? [event(n, "team.member_removed")] : []
            )
          assert.isTrue(yield* removal(3))
          assert.isFalse(yield* removal(4))
          const claimed = yield* outbox.claim({ now: 1, limit: 10, leaseMillis: 1_000 })
          assert.deepStrictEqual(
            claimed.map(({ event: e }) => [e.event_type, e.sequence]),
            [
              ["team.member_added", 1],
              ["team.member_removed", 2]
            ]
          )
        }).pipe(Effect.provide(storage.layer()))
    )
  })
