/**
 * Retention over real HTTP (issue 22, item 5), on SQLite and on MongoDB (jongodb): with short windows, the pruning
 * worker deletes a delivered webhook delivery and its fanned-out event, while a pending delivery (waiting in its retry
 * window) is kept however old; the API then lists the log without them.
 */
import { assert, describe, it } from "@effect/vitest"
import { eventually } from "@svc/adapters/test/Eventually"
import { Effect, type Scope } from "effect"
import {
  call,
  seedTeam,
  signIn,
  startMongoTestServer,
  startTestServerWith,
  type TestServer,
  type TestServerOptions
} from "../test/TestServer.ts"
import { startReceiver } from "../test/WebhookReceiver.ts"

const options: TestServerOptions = {
  webhooks: {
    webhookDispatcher: { idleMillis: 20, schedule: { delays: [60_000], thenEvery: 60_000, giveUpAfter: 600_000 } }
  },
  // Everything done is old after 300 ms; the worker looks every 100 ms.
  retention: {
    windows: { events: 300, deliveries: 300, requests: 300, mails: 300, transactions: 300 },
    every: "100 millis"
  }
}

const deliveriesOf = (server: TestServer, token: string, webhook: string) =>
  Effect.map(
    call(server, "GET", `/v2/webhooks/${webhook}/deliveries`, { token }),
    (answer) => answer.body.data.items as ReadonlyArray<{ delivery_nanoid: string; status: string }>
  )

const prunes = (start: Effect.Effect<TestServer, unknown, Scope.Scope>) =>
  Effect.gen(function* () {
    const server = yield* start
    const { teamId, members } = yield* seedTeam(server, ["team_admin"])
    const token = yield* signIn(server, members[0]!.account)
    const ok = yield* startReceiver()
    const down = yield* startReceiver(() => ({ status: 503 }))
    const endpoint = (url: string, name: string) =>
      Effect.map(
        call(server, "POST", "/v2/webhooks", {
          token,
          body: { team_nanoid: teamId, url, events: ["payment.sent"], name }
        }),
        (created) => created.body.data.webhook_nanoid as string
      )
    const delivered = yield* endpoint(ok.url, "ok")
    const failing = yield* endpoint(down.url, "down")
    for (const webhook of [delivered, failing]) {
      yield* call(server, "POST", `/v2/webhooks/test/${webhook}`, { token, body: { event_type: "payment.sent" } })
    }
    yield* ok.waitFor(1)
    yield* down.waitFor(1)
    // The delivered one goes once its window passed; the one waiting for its retry, as old, stays: the pass that
    // pruned the first read it too.
    yield* eventually(
      Effect.map(deliveriesOf(server, token, delivered), (items) => items.length === 0),
      { what: "the delivered delivery pruned", every: "100 millis", timeout: "60 seconds" }
    )
    const waiting = yield* deliveriesOf(server, token, failing)
    assert.strictEqual(waiting.length, 1)
    assert.strictEqual(waiting[0]?.status, "pending")
  }).pipe(Effect.scoped)

describe("retention", () => {
  it.live(
    "SQLite: a delivered delivery is pruned after its window, a pending one never",
    () => prunes(startTestServerWith(options)),
    120_000
  )
  it.live("MongoDB: the same", () => prunes(startMongoTestServer(options)), 120_000)
})
