import { assert, describe, it } from "@effect/vitest"
import { Effect, Logger, References } from "effect"
import { TestClock } from "effect/testing"
import { outboxEvents, seedTeam, webhookBody } from "../../test/UseCaseKit.ts"
import { deliverySettings, dispatcherLayer, type Receiver, signedBy, startReceiver } from "../../test/WebhookKit.ts"
import { EventOutbox, makeDomainEvent } from "../event/index.ts"
import type { DeliveryId, WebhookId } from "../Ids.ts"
import { createWebhook } from "./CreateWebhook.ts"
import { deleteWebhook } from "./DeleteWebhook.ts"
import { deliverDue } from "./DeliverDue.ts"
import { fanOutEvents } from "./FanOut.ts"
import { rotateSecret } from "./RotateSecret.ts"
import type { RetrySchedule } from "./WebhookDelivery.ts"
import { rotationGraceMillis } from "./WebhookEndpoint.ts"
import { WebhookDeliveryStore, WebhookEndpointRepository } from "./WebhookRepository.ts"

const start = Date.parse("2026-03-01T10:00:00.000Z")

/**
 * The seeded team's admin's endpoint at the receiver, for `payment.sent`, and one such event fanned out to it: the
 * delivery due now.
 */
const pendingDelivery = (receiver: Receiver) =>
  Effect.gen(function* () {
    const seeded = yield* seedTeam
    const created = yield* createWebhook(seeded.admin, webhookBody(seeded.team, receiver.url))
    const endpoint = created.webhook_nanoid as WebhookId
    yield* TestClock.setTime(start)
    const event = yield* makeDomainEvent({ event_type: "payment.sent", team_nanoid: seeded.team, data: { amount: 1 } })
    yield* EventOutbox.use((o) => o.append([event]))
    yield* fanOutEvents({ leaseMillis: 60_000 })
    const [delivery] = yield* WebhookDeliveryStore.use((d) => d.list(endpoint, { limit: 10 }))
    return { ...seeded, endpoint, secret: created.secret, event, delivery: delivery?.nanoid as DeliveryId }
  })

const deliveryOf = (id: DeliveryId) =>
  Effect.map(
    WebhookDeliveryStore.use((d) => d.findById(id)),
    (d) => d!
  )
const endpointOf = (id: WebhookId) => WebhookEndpointRepository.use((e) => e.findById(id))
const deliver = (schedule?: RetrySchedule) => Effect.flatMap(deliverySettings(schedule), deliverDue)

describe("deliverDue", () => {
  it.effect("sends a due delivery once, signed with the endpoint's secret, and records it delivered", () =>
    Effect.gen(function* () {
      const receiver = yield* startReceiver
      const { delivery, secret, event } = yield* pendingDelivery(receiver)
      assert.strictEqual(yield* deliver(), 1)
      const [request, ...more] = receiver.received
      assert.deepStrictEqual(more, [])
      assert.strictEqual(request?.path, "/hook")
      assert.strictEqual(request?.headers["webhook-id"], delivery)
      assert.strictEqual(request?.headers["webhook-timestamp"], String(start / 1000))
      assert.isTrue(signedBy(request!, secret))
      assert.isFalse(signedBy(request!, `whsec_${Buffer.alloc(32, 7).toString("base64")}`))
      assert.isFalse(signedBy({ ...request!, body: request!.body.replace('"amount":1', '"amount":2') }, secret))
      const body = JSON.parse(request?.body ?? "")
      assert.strictEqual(body.id, event.id)
      assert.strictEqual(body.event_type, "payment.sent")
      assert.deepStrictEqual(body.data, { amount: 1 })
      const done = yield* deliveryOf(delivery)
      assert.strictEqual(done.status, "succeeded")
      assert.strictEqual(done.attempts, 1)
      assert.deepStrictEqual(
        done.attempt_log.map((a) => [a.number, a.status_code, a.error]),
        [[1, 200, undefined]]
      )
      // Delivered: nothing is due any more.
      yield* TestClock.adjust(24 * 3_600_000)
      assert.strictEqual(yield* deliver(), 0)
      assert.strictEqual(receiver.received.length, 1)
    }).pipe(Effect.scoped, Effect.provide(dispatcherLayer))
  )

  it.effect("a failed attempt is retried after the schedule's delay, the endpoint failing until one succeeds", () =>
    Effect.gen(function* () {
      const receiver = yield* startReceiver
      const { delivery, endpoint } = yield* pendingDelivery(receiver)
      receiver.answer = () => ({ status: 500 })
      assert.strictEqual(yield* deliver(), 1)
      const failed = yield* deliveryOf(delivery)
      assert.strictEqual(failed.status, "pending")
      assert.strictEqual(failed.attempts, 1)
      assert.deepStrictEqual(
        failed.attempt_log.map((a) => [a.status_code, a.error]),
        [[500, "HTTP 500"]]
      )
      // About 5 s later (±10 %).
      const next = failed.next_attempt_at ?? 0
      assert.isAtLeast(next, start + 4_500)
      assert.isAtMost(next, start + 5_500)
      assert.strictEqual((yield* endpointOf(endpoint)).failing_since, "2026-03-01T10:00:00.000Z")
      yield* TestClock.adjust(next - start - 1)
      assert.strictEqual(yield* deliver(), 0)
      receiver.answer = () => ({ status: 204 })
      yield* TestClock.adjust(1)
      assert.strictEqual(yield* deliver(), 1)
      const done = yield* deliveryOf(delivery)
      assert.strictEqual(done.status, "succeeded")
      assert.strictEqual(done.attempts, 2)
      assert.isUndefined((yield* endpointOf(endpoint)).failing_since)
      // Both attempts carry the delivery's id.
      assert.deepStrictEqual(
        receiver.received.map((r) => r.headers["webhook-id"]),
        [delivery, delivery]
      )
    }).pipe(Effect.scoped, Effect.provide(dispatcherLayer))
  )

  it.effect("gives a delivery up once the schedule's time is over: failed, never attempted again", () =>
    Effect.gen(function* () {
      const receiver = yield* startReceiver
      const { delivery } = yield* pendingDelivery(receiver)
      receiver.answer = () => ({ status: 502 })
      const schedule: RetrySchedule = { delays: [1_000], thenEvery: 2_000, giveUpAfter: 5_000 }
      let current = yield* deliveryOf(delivery)
      for (let i = 0; i < 10 && current.status === "pending"; i++) {
        yield* TestClock.setTime(current.next_attempt_at ?? 0)
        assert.strictEqual(yield* deliver(schedule), 1)
        current = yield* deliveryOf(delivery)
      }
      assert.strictEqual(current.status, "failed")
      assert.isUndefined(current.next_attempt_at)
      const times = current.attempt_log.map((a) => a.at - start)
      // Attempts at 0, ~1 s, then every ~2 s, the last at least 5 s after the first.
      assert.isAtLeast(times.at(-1) ?? 0, 5_000)
      assert.isAtMost(times.length, 5)
      assert.strictEqual(current.attempts, times.length)
      yield* TestClock.adjust(7 * 24 * 3_600_000)
      assert.strictEqual(yield* deliver(schedule), 0)
      assert.strictEqual(receiver.received.length, times.length)
    }).pipe(Effect.scoped, Effect.provide(dispatcherLayer))
  )

  it.effect("a 503 with Retry-After is tried again when the receiver asked", () =>
    Effect.gen(function* () {
      const receiver = yield* startReceiver
      const { delivery } = yield* pendingDelivery(receiver)
      receiver.answer = () => ({ status: 503, headers: { "retry-after": "120" } })
      yield* deliver()
      assert.strictEqual((yield* deliveryOf(delivery)).next_attempt_at, start + 120_000)
    }).pipe(Effect.scoped, Effect.provide(dispatcherLayer))
  )

  it.effect("410 Gone disables the endpoint, with webhook.endpoint.disabled, and ends the delivery", () =>
    Effect.gen(function* () {
      const receiver = yield* startReceiver
      const { delivery, endpoint } = yield* pendingDelivery(receiver)
      receiver.answer = () => ({ status: 410 })
      yield* deliver()
      assert.strictEqual((yield* deliveryOf(delivery)).status, "failed")
      const disabled = yield* endpointOf(endpoint)
      assert.strictEqual(disabled.state, "disabled")
      const [announced, ...more] = yield* outboxEvents
      assert.deepStrictEqual(more, [])
      assert.strictEqual(announced?.event_type, "webhook.endpoint.disabled")
      assert.deepInclude(announced?.data as object, { nanoid: endpoint, reason: "gone" })
    }).pipe(Effect.scoped, Effect.provide(dispatcherLayer))
  )

  it.effect("keeps the start of the receiver's answer with its attempt, and writes none of it to the logs", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const receiver = yield* startReceiver
      const { delivery } = yield* pendingDelivery(receiver)
      const answer = `{"error":"endpoint retired","token":"rcv-7f3a"}`
      // A 410 is logged (the endpoint disabled): the logs are written, and the body is not in them.
      receiver.answer = () => ({ status: 410, headers: { "content-type": "application/json" }, body: answer })
      yield* deliver().pipe(
        Effect.provide(Logger.layer([Logger.map(Logger.formatJson, (line) => lines.push(line))])),
        Effect.provideService(References.MinimumLogLevel, "All")
      )
      const [attempt] = (yield* deliveryOf(delivery)).attempt_log
      assert.deepStrictEqual(attempt?.response_body, { text: answer, truncated: false })
      assert.isNotEmpty(lines)
      assert.isTrue(lines.every((line) => !line.includes("rcv-7f3a")))
    }).pipe(Effect.scoped, Effect.provide(dispatcherLayer))
  )

  it.effect("a delivery to a deleted endpoint fails without a request", () =>
    Effect.gen(function* () {
      const receiver = yield* startReceiver
      const { delivery, endpoint, admin } = yield* pendingDelivery(receiver)
      yield* deleteWebhook(admin, endpoint)
      assert.strictEqual(yield* deliver(), 1)
      assert.strictEqual((yield* deliveryOf(delivery)).status, "failed")
      assert.deepStrictEqual(receiver.received, [])
    }).pipe(Effect.scoped, Effect.provide(dispatcherLayer))
  )

  it.effect("after a rotation, signed with the new and the old secret until the old one's grace ends", () =>
    Effect.gen(function* () {
      const receiver = yield* startReceiver
      const { endpoint, admin, team, secret } = yield* pendingDelivery(receiver)
      const rotated = yield* rotateSecret(admin, endpoint)
      yield* deliver()
      const [first] = receiver.received
      assert.isTrue(signedBy(first!, rotated.secret))
      assert.isTrue(signedBy(first!, secret))
      // Past the grace period, only the new secret signs.
      yield* TestClock.adjust(rotationGraceMillis + 1)
      yield* EventOutbox.use((o) =>
        Effect.flatMap(makeDomainEvent({ event_type: "payment.sent", team_nanoid: team, data: {} }), (e) =>
          o.append([e])
        )
      )
      yield* fanOutEvents({ leaseMillis: 60_000 })
      yield* deliver()
      const second = receiver.received[1]
      assert.isTrue(signedBy(second!, rotated.secret))
      assert.isFalse(signedBy(second!, secret))
    }).pipe(Effect.scoped, Effect.provide(dispatcherLayer))
  )
})
