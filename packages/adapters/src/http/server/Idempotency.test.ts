import { randomBytes } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Authentication, CurrentUser } from "@svc/contract"
import { walletAddressOf } from "@svc/domain/Evm"
import type { UserId } from "@svc/domain/Ids"
import { IdempotencyStore } from "@svc/domain/idempotency"
import { newUser, UserRepository } from "@svc/domain/user"
import { Effect, Layer, Redacted, Schema } from "effect"
import { HttpRouter, HttpServer, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { SqliteDatabase } from "../../sqlite/SqliteDatabase.ts"
import * as SqliteIdempotencyStore from "../../sqlite/SqliteIdempotencyStore.ts"
import * as SqliteRepositories from "../../sqlite/SqliteRepositories.ts"
import { AccessTokens } from "../AccessTokens.ts"
import { AuthenticationLive } from "./AuthenticationLive.ts"
import { maxBodyBytes, withErrorEnvelope } from "./ErrorEnvelope.ts"
import { withIdempotency } from "./Idempotency.ts"

// The key store on an in-memory SQLite database, fresh for each test that builds it.
const idempotencyStore = SqliteIdempotencyStore.layer.pipe(
  Layer.provide(SqliteDatabase.layer({ filename: ":memory:" })),
  Layer.orDie
)

// The idempotency middleware alone (no envelope around it): it must read the body under the limit itself.
const services = Layer.mergeAll(AccessTokens.make(Redacted.make(randomBytes(32).toString("hex"))), idempotencyStore)

const app = Layer.mergeAll(
  HttpRouter.add(
    "POST",
    "/echo",
    withErrorEnvelope(
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
        Effect.map(request.text, (text) => HttpServerResponse.jsonUnsafe({ success: true, data: text.length }))
      )
    )
  ),
  HttpRouter.middleware(
    Effect.map(withIdempotency, (idempotency) => (effect) => idempotency(effect) as unknown as typeof effect),
    { global: true }
  )
).pipe(Layer.provide(HttpServer.layerServices))

/** A body of `bytes` bytes sent as a stream, so without a content-length. */
const chunkedBody = (bytes: number) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      const chunk = new Uint8Array(64 * 1024).fill(120)
      for (let sent = 0; sent < bytes; sent += chunk.length) controller.enqueue(chunk)
      controller.close()
    }
  })

describe("idempotency middleware", () => {
  it.live("reads the body under the 1 MiB limit: a longer chunked body answers 413 and claims nothing", () =>
    Effect.gen(function* () {
      const context = yield* Layer.build(services)
      const tokens = yield* AccessTokens.pipe(Effect.provide(context))
      const store = yield* IdempotencyStore.pipe(Effect.provide(context))
      const token = yield* tokens.issue({ sub: "us-000000000001" as UserId, wallet: `0x${"01".repeat(20)}` })
      const { handler, dispose } = HttpRouter.toWebHandler(app.pipe(Layer.provide(Layer.succeedContext(context))), {
        disableLogger: true
      })
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const send = (bytes: number, key: string) =>
        Effect.promise(async () => {
          const response = await handler(
            new Request("http://localhost/echo", {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "idempotency-key": key },
              body: chunkedBody(bytes),
              duplex: "half"
            } as RequestInit)
          )
          return { status: response.status, body: (await response.json()) as { error_code?: string } }
        })

      const small = yield* send(64 * 1024, "small")
      assert.strictEqual(small.status, 200, JSON.stringify(small.body))
      const large = yield* send(maxBodyBytes + 64 * 1024, "large")
      assert.strictEqual(large.status, 413, JSON.stringify(large.body))
      assert.strictEqual(large.body.error_code, "PAYLOAD_TOO_LARGE")
      const claim = yield* store.claim({ scope: "us-000000000001", key: "large" }, "h", Date.now())
      assert.strictEqual(claim._tag, "Claimed", "the oversized request left no claim behind")
    }).pipe(Effect.scoped)
  )
})

// An authenticated route behind the idempotency middleware, with the real token verifier counted.
class Probe extends HttpApiGroup.make("probe")
  .add(
    HttpApiEndpoint.post("whoami", "/whoami", { payload: Schema.Struct({ n: Schema.Number }), success: Schema.String })
  )
  .middleware(Authentication) {}
class ProbeApi extends HttpApi.make("probe").add(Probe) {}

const probeHandlers = HttpApiBuilder.group(ProbeApi, "probe", (handlers) =>
  handlers.handle("whoami", () =>
    Effect.gen(function* () {
      return (yield* CurrentUser).nanoid
    })
  )
)

describe("idempotency middleware and authentication", () => {
  it.live("a request with a key verifies its token once; authentication reuses the verdict", () =>
    Effect.gen(function* () {
      let verifications = 0
      const countedTokens = Layer.effect(
        AccessTokens,
        Effect.gen(function* () {
          const real = yield* AccessTokens
          return AccessTokens.of({
            issue: real.issue,
            renew: real.renew,
            verify: (token) =>
              Effect.andThen(
                Effect.sync(() => verifications++),
                real.verify(token)
              )
          })
        })
      ).pipe(Layer.provide(AccessTokens.make(Redacted.make(randomBytes(32).toString("hex")))))
      // Authentication also finds the token's user.
      const storage = Layer.mergeAll(SqliteIdempotencyStore.layer, SqliteRepositories.users).pipe(
        Layer.provide(SqliteDatabase.layer({ filename: ":memory:" })),
        Layer.orDie
      )
      const context = yield* Layer.build(Layer.mergeAll(countedTokens, storage))
      const tokens = yield* AccessTokens.pipe(Effect.provide(context))
      const wallet = walletAddressOf(`0x${"02".repeat(20)}`)
      yield* UserRepository.use((users) =>
        users.insert(newUser({ nanoid: "us-000000000002" as UserId, wallet, created_at: new Date().toISOString() }))
      ).pipe(Effect.provide(context), Effect.orDie)
      const token = yield* tokens.issue({ sub: "us-000000000002" as UserId, wallet })
      const routes = Layer.mergeAll(
        HttpApiBuilder.layer(ProbeApi).pipe(Layer.provide(probeHandlers), Layer.provide(AuthenticationLive)),
        HttpRouter.middleware(
          Effect.map(withIdempotency, (idempotency) => (effect) => idempotency(effect) as unknown as typeof effect),
          { global: true }
        )
      ).pipe(Layer.provide(HttpServer.layerServices), Layer.provide(Layer.succeedContext(context)))
      const { handler, dispose } = HttpRouter.toWebHandler(routes, { disableLogger: true })
      yield* Effect.addFinalizer(() => Effect.promise(dispose))
      const send = (headers: Record<string, string>) =>
        Effect.promise(async () => {
          verifications = 0
          const response = await handler(
            new Request("http://localhost/whoami", {
              method: "POST",
              headers: { "content-type": "application/json", ...headers },
              body: JSON.stringify({ n: 1 })
            })
          )
          return { status: response.status, body: await response.text(), verifications }
        })

      const keyed = yield* send({ authorization: `Bearer ${token}`, "idempotency-key": "once" })
      assert.deepStrictEqual(keyed, { status: 200, body: '"us-000000000002"', verifications: 1 })
      const replayed = yield* send({ authorization: `Bearer ${token}`, "idempotency-key": "once" })
      assert.deepStrictEqual(replayed, { status: 200, body: '"us-000000000002"', verifications: 1 })
      const plain = yield* send({ authorization: `Bearer ${token}` })
      assert.deepStrictEqual(plain, { status: 200, body: '"us-000000000002"', verifications: 1 })
      // A refused token is refused once too, and by authentication (401), not by the idempotency middleware.
      // The signature's second-to-last character carries six whole bits, so changing it always changes the signature.
      const altered = `${token.slice(0, -2)}${token.at(-2) === "A" ? "B" : "A"}${token.slice(-1)}`
      const forged = yield* send({ authorization: `Bearer ${altered}`, "idempotency-key": "forged" })
      assert.strictEqual(forged.status, 401)
      assert.strictEqual(forged.verifications, 1)
    }).pipe(Effect.scoped)
  )
})
