/**
 * The dispatcher's steps on the default schedule of DESIGN §5, driven by the TestClock over an in-memory SQLite
 * database and a real receiver: fan-out once per event and endpoint, retries at ~5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h then every 12 h, the last at least 3 days after the first; an endpoint failing for 5 days is disabled; a lease
 * that lapses (a dispatcher killed mid-send) is taken over.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, it } from "@effect/vitest"
import { EventOutbox, makeDomainEvent } from "@svc/domain/event"
import { IdGenerator, type TeamId, type WebhookId } from "@svc/domain/Ids"
import { Randomness } from "@svc/domain/Randomness"
import {
  WebhookSecretBox as SecretBox,
  WebhookDeliveryStore,
  WebhookDispatcher,
  WebhookEndpointRepository,
  WebhookUrlPolicy
} from "@svc/domain/webhook"
import { Clock, Effect, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import * as SqliteStorage from "../sqlite/SqliteStorage.ts"
import * as HttpWebhookSender from "./HttpWebhookSender.ts"
import * as WebhookSecretBox from "./WebhookSecretBox.ts"

const team = "te-000000000001" as TeamId
const hour = 3_600_000

/** A receiver answering `status`, counting requests; closed with the scope. */
const receiver = (status: () => number) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ url: string; ids: Array<string>; close: () => void }>((resolve) => {
          const ids: Array<string> = []
          const server = createServer((req, res) => {
            req.resume()
            req.on("end", () => {
              ids.push(String(req.headers["webhook-id"]))
              res.writeHead(status()).end()
            })
          })
          server.listen(0, "127.0.0.1", () =>
            resolve({
              url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
              ids,
              close: () => {
                server.closeAllConnections()
                server.close()
              }
            })
          )
        })
    ),
    ({ close }) => Effect.sync(close)
  )

const storage = SqliteStorage.layer({ filename: ":memory:" }).pipe(Layer.orDie)
const services = Layer.mergeAll(
  storage,
  HttpWebhookSender.layer.pipe(Layer.provide(WebhookUrlPolicy.layer({ requireHttps: false, allowPrivate: true }))),
  WebhookSecretBox.layer(Redacted.make(WebhookSecretBox.newKey())),
  IdGenerator.layerTest,
  Randomness.layerTest()
)
const dispatcher = WebhookDispatcher.layer({ leaseMillis: 60_000 }).pipe(Layer.provideMerge(services))

/** An active endpoint of the team at `url` for `payment.sent`. */
const endpointAt = (url: string, id = "wh-000000000001") =>
  Effect.gen(function* () {
    const box = yield* SecretBox
    const sealed = yield* box.seal(`whsec_${Buffer.alloc(32, 3).toString("base64")}`)
    yield* WebhookEndpointRepository.use((e) =>
      e.insert({
        nanoid: id as WebhookId,
        company_nanoid: "co-000000000001" as never,
        team_nanoid: team,
        url,
        events: ["payment.sent"],
        state: "active",
        name: "ops",
        description: "",
        version: 2,
        secrets: [{ sealed }],
        created_at: "2026-01-01T00:00:00.000Z",
        updated_at: "2026-01-01T00:00:00.000Z"
      })
    )
    return id as WebhookId
  })

const sentEvent = makeDomainEvent({ event_type: "payment.sent", team_nanoid: team, data: { n: 1 } })

describe("WebhookDispatcher", () => {
  it.effect("retries on DESIGN §5's schedule until 3 days after the first attempt, under one webhook-id", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00.000Z"))
      const hook = yield* receiver(() => 500)
      const id = yield* endpointAt(hook.url)
      const { fanOut, deliverDue } = yield* WebhookDispatcher
      yield* EventOutbox.use((o) => o.append([]))
      yield* Effect.flatMap(sentEvent, (e) => EventOutbox.use((o) => o.append([e])))
      assert.strictEqual(yield* fanOut, 1)
      assert.strictEqual(yield* fanOut, 0)
      const store = yield* WebhookDeliveryStore
      const start = yield* Clock.currentTimeMillis
      const times: Array<number> = []
      // Step the clock to each due time and run a pass; at most 20 passes.
      for (let pass = 0; pass < 20; pass++) {
        const [delivery] = yield* store.list(id, { limit: 1 })
        if (delivery === undefined || delivery.status !== "pending") break
        yield* TestClock.setTime(delivery.next_attempt_at ?? 0)
        times.push((delivery.next_attempt_at ?? 0) - start)
        assert.strictEqual(yield* deliverDue, 1)
      }
      const [delivery] = yield* store.list(id, { limit: 1 })
      assert.strictEqual(delivery?.status, "failed")
      assert.strictEqual(delivery?.attempt_log.length, times.length)
      assert.strictEqual(new Set(hook.ids).size, 1)
      assert.strictEqual(hook.ids.length, times.length)
      const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0))
      const expected = [5_000, 5 * 60_000, 30 * 60_000, 2 * hour, 5 * hour, 10 * hour, 10 * hour, 12 * hour]
      for (const [i, gap] of gaps.entries()) {
        const target = expected[Math.min(i, expected.length - 1)] ?? 0
        assert.isTrue(gap >= target * 0.9 && gap <= target * 1.1, `gap ${i}: ${gap} vs ${target}`)
      }
      assert.isTrue((times.at(-1) ?? 0) >= 72 * hour, `last attempt at ${times.at(-1)}`)
      assert.isTrue((times.at(-2) ?? 0) < 72 * hour)
    }).pipe(Effect.scoped, Effect.provide(dispatcher))
  )

  it.effect("an endpoint failing for 5 days is disabled; a lapsed lease is taken over", () =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2026-01-01T00:00:00.000Z"))
      const hook = yield* receiver(() => 503)
      const id = yield* endpointAt(hook.url)
      const { fanOut, deliverDue } = yield* WebhookDispatcher
      const store = yield* WebhookDeliveryStore
      // A dispatcher claims a delivery and dies: nothing is recorded; after the lease another one sends it.
      yield* Effect.flatMap(sentEvent, (e) => EventOutbox.use((o) => o.append([e])))
      yield* fanOut
      const [taken] = yield* store.claimDue({ now: yield* Clock.currentTimeMillis, limit: 1, leaseMillis: 60_000 })
      assert.isDefined(taken)
      assert.strictEqual(yield* deliverDue, 0)
      yield* TestClock.adjust("61 seconds")
      assert.strictEqual(yield* deliverDue, 1)
      assert.strictEqual(hook.ids.length, 1)
      // A new event every day, each failing: the endpoint is disabled once failures span 5 days.
      for (let day = 1; day <= 6; day++) {
        yield* TestClock.adjust("1 day")
        yield* Effect.flatMap(sentEvent, (e) => EventOutbox.use((o) => o.append([e])))
        yield* fanOut
        yield* deliverDue
      }
      const endpoint = yield* WebhookEndpointRepository.use((e) => e.findById(id))
      assert.strictEqual(endpoint.state, "disabled")
      assert.isDefined(endpoint.disabled_at)
    }).pipe(Effect.scoped, Effect.provide(dispatcher))
  )
})
