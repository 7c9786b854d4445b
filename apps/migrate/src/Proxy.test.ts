/**
 * A v1 client, written against the v1 shapes of reference/rise-api.md (`rise` -> `svc`) and signing with ethers,
 * runs unchanged against the real server (on a SQLite file and anvil), twice: through the proxy, and on the API's own
 * `/v1` (in-process, decision 0074). Each: sign in on both SIWE paths, list teams and talent, batch-pay (typed data
 * signed with eth_signTypedData_v4, executed once), balance, payments and invites; and the errors, headers and counts.
 * Then the same sign-in and lists on MongoDB, both ways.
 */
import { assert, layer } from "@effect/vitest"
import { JongodbDatabase } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { MongoV1IdMap } from "@svc/adapters/mongo"
import { SqliteDatabase, SqliteV1IdMap } from "@svc/adapters/sqlite"
import {
  addMember,
  call,
  type SeededMember,
  seedTeam,
  startMongoTestServer,
  startTestServerWith,
  type TestServer
} from "@svc/api/TestServer"
import { ChainGateway } from "@svc/domain/chain"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { TeamRepository } from "@svc/domain/team"
import { Context, Effect, Layer } from "effect"
import { type HDNodeWallet, Wallet } from "ethers"
import { keccak256, toHex } from "viem"
import { inject } from "vitest"
import { type RunningProxy, serveProxy } from "./Proxy.ts"

// biome-ignore lint/suspicious/noExplicitAny: the v1 client reads arbitrary JSON
type Json = any

const rpcUrl = inject("rpcUrl")

/** Where the v1 client goes: the proxy's own server, or the API serving `/v1` itself. */
type Mode = "proxy" | "in-process"

class Fixture extends Context.Service<
  Fixture,
  {
    readonly server: TestServer
    /** The v1 base URL, and its per-route counts as the process serving it keeps them. */
    readonly v1: { readonly url: string; readonly stats: Effect.Effect<Record<string, number>> }
    readonly admin: HDNodeWallet
    readonly team: string
    readonly teamAccount: string
    readonly members: ReadonlyArray<SeededMember>
  }
>()("test/migrate/Proxy") {}

const sunset = new Date("2027-01-01T00:00:00Z")

const FixtureLayer = (mode: Mode) =>
  Layer.effect(
    Fixture,
    Effect.gen(function* () {
      const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl, chainId: 42161 })).pipe(Effect.orDie)
      const gateway = Context.get(chainContext, ChainGateway)
      const server = yield* startTestServerWith({
        chain: Layer.succeed(ChainGateway, gateway),
        ...(mode === "in-process" ? { v1: { sunset } } : {})
      })
      const seeded = yield* seedTeam(server, ["team_employee", "team_contractor"], { name: "V1 Payroll" })
      const admin = Wallet.createRandom()
      yield* addMember(seeded.teamId, admin.address, "team_admin", "admin@v1.example").pipe(
        Effect.provide(server.context)
      )
      const { account } = yield* gateway
        .createAccount(admin.address as `0x${string}`, keccak256(toHex(seeded.teamId)))
        .pipe(Effect.orDie)
      yield* Context.get(chainContext, EmbeddedChain)
        .mint(account, 1_000n * 10n ** 6n)
        .pipe(Effect.orDie)
      yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
        Effect.provide(server.context)
      )
      if (server.storage._tag !== "sqlite") return yield* Effect.die(new Error("expected SQLite"))
      const fixture = {
        server,
        admin,
        team: seeded.teamId,
        teamAccount: account.toLowerCase(),
        members: seeded.members
      }
      if (mode === "in-process") return { ...fixture, v1: servedBy(server) }
      const idMap = SqliteV1IdMap.layer.pipe(
        Layer.provide(SqliteDatabase.layer({ filename: server.storage.filename })),
        Layer.orDie
      )
      const proxy = yield* serveProxy({ target: server.baseUrl, port: 0, sunset }).pipe(
        Effect.provide(yield* Layer.build(idMap))
      )
      return { ...fixture, v1: ofProxy(proxy) }
    })
  )

/** The proxy's URL and counts. */
const ofProxy = (proxy: RunningProxy) => ({ url: proxy.url, stats: Effect.sync(proxy.stats) })

/** The API's own `/v1`: its counts are what `GET /v1/_stats` answers (no other handle on them). */
const servedBy = (server: TestServer) => ({
  url: server.baseUrl,
  stats: Effect.map(call(server, "GET", "/v1/_stats"), (answer) => answer.body.data.routes as Record<string, number>)
})

/** A v1 call. */
const v1 = (method: string, path: string, options: { readonly token?: string; readonly body?: unknown } = {}) =>
  Effect.flatMap(Fixture, ({ v1 }) => call({ baseUrl: v1.url } as TestServer, method, path, options))

/** The v1 sign-in of reference/rise-api.md: GET the message, sign it, POST it back; answers the token. */
const v1SignIn = (wallet: HDNodeWallet, path = "/v1/auth/api/siwe") =>
  Effect.gen(function* () {
    const challenge = yield* v1("GET", `${path}?wallet=${wallet.address}`)
    assert.strictEqual(challenge.status, 200, JSON.stringify(challenge.body))
    assert.strictEqual(challenge.body.data.wallet, wallet.address)
    const signature = yield* Effect.promise(() => wallet.signMessage(challenge.body.data.message))
    const verified = yield* v1("POST", path, {
      body: { wallet: wallet.address, message: challenge.body.data.message, signature }
    })
    assert.strictEqual(verified.status, 200, JSON.stringify(verified.body))
    return verified.body.data.token as string
  })

for (const mode of ["proxy", "in-process"] as const)
  layer(FixtureLayer(mode), { timeout: 180_000, excludeTestServices: true })(`v1 client, ${mode}`, (it) => {
    it.effect("signs in on both SIWE paths, lists teams and talent with numeric ids and svcIds", () =>
      Effect.gen(function* () {
        const { admin, team, teamAccount, members } = yield* Fixture
        const token = yield* v1SignIn(admin)
        assert.isString(yield* v1SignIn(admin, "/v1/api/siwe"))
        const teams = yield* v1("GET", "/v1/teams/", { token })
        assert.strictEqual(teams.status, 200, JSON.stringify(teams.body))
        assert.strictEqual(teams.headers.get("deprecation"), "true")
        assert.strictEqual(teams.headers.get("sunset"), "Fri, 01 Jan 2027 00:00:00 GMT")
        const mine: Json = teams.body.data.find((t: Json) => t.name === "V1 Payroll")
        assert.isNumber(mine.id)
        assert.strictEqual(mine.svcId, teamAccount)
        // The same team keeps its number.
        const again = yield* v1("GET", "/v1/teams", { token })
        assert.strictEqual(again.body.data.find((t: Json) => t.nanoid === team).id, mine.id)

        const talent = yield* v1("GET", `/v1/teams/${mine.id}/talent`, { token })
        assert.strictEqual(talent.status, 200, JSON.stringify(talent.body))
        const employee: Json = talent.body.data.find((t: Json) => t.nanoid === members[0]?.user)
        assert.isNumber(employee.id)
        assert.match(employee.svcId, /^0x[0-9a-f]{40}$/)
        assert.strictEqual(employee.firstname, "Test")
        // By number or by svcId, the team and the member are the same.
        for (const [teamId, talentId] of [
          [mine.id, employee.id],
          [mine.svcId, employee.svcId]
        ]) {
          const one = yield* v1("GET", `/v1/teams/${teamId}/talent/${talentId}`, { token })
          assert.strictEqual(one.status, 200, JSON.stringify(one.body))
          assert.strictEqual(one.body.data.nanoid, employee.nanoid)
          assert.strictEqual(one.body.data.id, employee.id)
        }
      })
    )

    it.effect("batch-pay: PUT answers typed data, ethers signs it (eth_signTypedData_v4), POST executes it once", () =>
      Effect.gen(function* () {
        const { admin, teamAccount } = yield* Fixture
        const token = yield* v1SignIn(admin)
        const teamId = (yield* v1("GET", "/v1/teams", { token })).body.data.find(
          (t: Json) => t.svcId === teamAccount
        ).id
        const talent: Array<Json> = (yield* v1("GET", `/v1/teams/${teamId}/talent`, { token })).body.data
        const payable = talent.filter((t) => t.role === "team_employee" || t.role === "team_contractor")
        assert.strictEqual(payable.length, 2)
        const before = yield* v1("GET", `/v1/svcid/${teamAccount}/balance`, { token })
        assert.strictEqual(before.status, 200, JSON.stringify(before.body))
        const body = {
          wallet: admin.address,
          svc_id: teamAccount,
          total_amount: "3500000",
          payments: [
            { recipient: payable[0].svcId, amount: "1000000", salt: 1 },
            { recipient: payable[1].svcId, amount: 2_500_000, salt: 2 }
          ]
        }
        const issued = yield* v1("PUT", "/v1/payments/batch-pay", { token, body })
        assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
        const { domain, types, primaryType, message } = issued.body.data
        assert.strictEqual(primaryType, "CreatePaymentsForwardRequest")
        assert.isArray(types.EIP712Domain)
        const { EIP712Domain: _, ...signedTypes } = types
        const signature = yield* Effect.promise(() => admin.signTypedData(domain, signedTypes, message))
        const executed = yield* v1("POST", "/v1/payments/batch-pay", {
          token,
          body: { ...body, request: message, signature }
        })
        assert.strictEqual(executed.status, 200, JSON.stringify(executed.body))
        assert.match(executed.body.data.transaction, /^0x[0-9a-f]{64}$/)
        assert.strictEqual(executed.body.data.payments.length, 2)

        const replay = yield* v1("POST", "/v1/payments/batch-pay", {
          token,
          body: { ...body, request: message, signature }
        })
        // Executed once: sent again, v2 answers the same execution, and the balance below moved once.
        assert.strictEqual(replay.status, 200, JSON.stringify(replay.body))
        assert.strictEqual(replay.body.data.transaction, executed.body.data.transaction)

        const after = yield* v1("GET", `/v1/riseid/${teamAccount}/balance`, { token })
        assert.strictEqual(BigInt(before.body.data.balance) - BigInt(after.body.data.balance), 3_500_000n)
        assert.strictEqual(after.body.data.svcId, teamAccount)

        const payments = yield* v1("GET", `/v1/payments?team_id=${teamId}`, { token })
        assert.strictEqual(payments.status, 200, JSON.stringify(payments.body))
        assert.isAtLeast(payments.body.data.length, 2)

        const fraction = yield* v1("PUT", "/v1/payments/batch-pay", {
          token,
          body: { ...body, total_amount: undefined, payments: [{ recipient: payable[0].svcId, amount: "1000001" }] }
        })
        assert.strictEqual(fraction.status, 400)
        assert.match(fraction.body.message, /not a whole number of cents/)
      })
    )

    it.effect("GET /v1/payments answers every payment, past the v2 query's page of 1000", () =>
      Effect.gen(function* () {
        const { server, admin, team, teamAccount, members } = yield* Fixture
        const token = yield* v1SignIn(admin)
        const employee = members.find((m) => m.role === "team_employee") as SeededMember
        // 1001 payments of a cent, in two batches that each fit a block, made and signed on v2.
        for (const size of [500, 501]) {
          const body = {
            from: team,
            to: Array.from({ length: size }, (_, n) => ({
              to: employee.user,
              amount_cents: 1,
              currency_symbol: "USD",
              invoice_description: `bulk ${size}-${n}`
            })),
            pay_now: true
          }
          const post = yield* call(server, "POST", "/v2/payments", { token, body })
          assert.strictEqual(post.status, 200, JSON.stringify(post.body))
          const bundle = post.body.data as TypedDataBundle
          const { domain, types, message } = signableOf(bundle) as Json
          const { EIP712Domain: _, ...signedTypes } = types
          const signature = yield* Effect.promise(() => admin.signTypedData(domain, signedTypes, message))
          const put = yield* call(server, "PUT", "/v2/payments", {
            token,
            body: { ...body, signer: admin.address, typed_data: bundle.typed_data, signature }
          })
          assert.strictEqual(put.status, 200, JSON.stringify(put.body))
        }
        const teamId = (yield* v1("GET", "/v1/teams", { token })).body.data.find(
          (t: Json) => t.svcId === teamAccount
        ).id
        const payments = yield* v1("GET", `/v1/payments?team_id=${teamId}`, { token })
        assert.strictEqual(payments.status, 200, JSON.stringify(payments.body).slice(0, 500))
        const bulk = (payments.body.data as Array<Json>).filter((p) =>
          String(p.invoice.invoice_description).startsWith("bulk ")
        )
        assert.strictEqual(new Set(bulk.map((p) => p.payment.nanoid)).size, 1001)
      })
    )

    it.effect("batch-pay intents: typed data for a later payment, signed and registered through the proxy", () =>
      Effect.gen(function* () {
        const { admin, teamAccount } = yield* Fixture
        const token = yield* v1SignIn(admin)
        const teamId = (yield* v1("GET", "/v1/teams", { token })).body.data.find(
          (t: Json) => t.svcId === teamAccount
        ).id
        const talent: Array<Json> = (yield* v1("GET", `/v1/teams/${teamId}/talent`, { token })).body.data
        const recipient = talent.find((t) => t.role === "team_employee")
        const body = {
          wallet: admin.address,
          team_id: teamId,
          pay_at_time: Math.floor(Date.now() / 1000) + 3600,
          payments: [{ recipient: recipient.id, amount: "500000", salt: 9 }]
        }
        const issued = yield* v1("POST", "/v1/payments/batch-pay/intents", { token, body })
        assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
        const { domain, types, message } = issued.body.data
        const { EIP712Domain: _, ...signedTypes } = types
        const signature = yield* Effect.promise(() => admin.signTypedData(domain, signedTypes, message))
        const registered = yield* v1("POST", "/v1/payments/batch-pay/intents", {
          token,
          body: { ...body, request: message, signature }
        })
        assert.strictEqual(registered.status, 200, JSON.stringify(registered.body))
        const intents = yield* v1("GET", `/v1/payments?team_id=${teamId}&state=intent`, { token })
        assert.strictEqual(intents.status, 200, JSON.stringify(intents.body))
        assert.isAtLeast(intents.body.data.length, 1)
      })
    )

    it.effect("invites pass the v2 answer through in v1 shape", () =>
      Effect.gen(function* () {
        const { admin, server, team } = yield* Fixture
        const token = yield* v1SignIn(admin)
        const teamId = (yield* v1("GET", "/v1/teams", { token })).body.data.find((t: Json) => t.nanoid === team).id
        const created = yield* v1("POST", "/v1/invites", {
          token,
          body: { inviteList: ["new.hire@v1.example", "0x1234"], anonymous: false, team_id: teamId, role: "contractor" }
        })
        const direct = yield* call(server, "POST", "/v2/invites", {
          token,
          body: { nanoid: team, invites: [{ email: "other.hire@v1.example" }], role: "contractor", anonymous: false }
        })
        // Both are served: one branch, asserted whole (it used to pass on either a success or an error).
        assert.strictEqual(direct.status, 200, JSON.stringify(direct.body))
        assert.strictEqual(created.status, 200, JSON.stringify(created.body))
        assert.deepStrictEqual(created.body.data.invited, ["new.hire@v1.example"])
        assert.strictEqual(created.body.data.countAdded, 1)
        assert.deepStrictEqual(created.body.data.failed, [{ invite: "0x1234", error: "v2 invites by e-mail only" }])
        const listed = yield* v1("GET", `/v1/invites?team_id=${teamId}`, { token })
        const directList = yield* call(server, "GET", `/v2/invites?nanoid=${team}`, { token })
        assert.strictEqual(directList.status, 200, JSON.stringify(directList.body))
        assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
        assert.sameMembers(
          (listed.body.data as Array<{ email: string }>).map((invite) => invite.email),
          (directList.body.data as Array<{ email: string }>).map((invite) => invite.email)
        )
        assert.includeMembers(
          (listed.body.data as Array<{ email: string }>).map((invite) => invite.email),
          ["new.hire@v1.example", "other.hire@v1.example"]
        )
      })
    )

    it.effect("answers v1 errors: no token, unknown ids, routes v2 does not have; counts calls per route", () =>
      Effect.gen(function* () {
        const { v1: served } = yield* Fixture
        const anonymous = yield* v1("GET", "/v1/teams")
        assert.strictEqual(anonymous.status, 401, JSON.stringify(anonymous.body))
        assert.deepStrictEqual(Object.keys(anonymous.body), ["message"])
        const token = yield* v1SignIn((yield* Fixture).admin)
        const { team } = yield* Fixture
        const teamNumber = (yield* v1("GET", "/v1/teams", { token })).body.data.find((t: Json) => t.nanoid === team).id
        assert.deepStrictEqual((yield* v1("GET", `/v1/teams/${teamNumber}/talent`)).body, {
          message: "A valid bearer token is required"
        })
        // Someone else's token: the team's talent is refused as v2 refuses its users, in v1's shape.
        const outsider = yield* v1SignIn(Wallet.createRandom())
        const refused = yield* v1("GET", `/v1/teams/${teamNumber}/talent`, { token: outsider })
        assert.strictEqual(refused.status, 403, JSON.stringify(refused.body))
        assert.deepStrictEqual(Object.keys(refused.body), ["message"])
        const unknown = yield* v1("GET", "/v1/teams/999999/talent", { token })
        assert.strictEqual(unknown.status, 404)
        assert.match(unknown.body.message, /Unknown v1 team id 999999/)
        const none = yield* v1("POST", "/v1/webhooks", { token, body: {} })
        assert.strictEqual(none.status, 404)
        assert.match(none.body.message, /has no v2 equivalent/)
        assert.strictEqual(none.headers.get("deprecation"), "true")
        const stats = yield* v1("GET", "/v1/_stats")
        assert.isAtLeast(stats.body.data.routes["GET /v1/teams"], 1)
        assert.isAtLeast(stats.body.data.routes.unmatched, 1)
        const counted = yield* served.stats
        // The in-process counts were read by one more `GET /v1/_stats`, which is not counted.
        assert.deepStrictEqual(stats.body.data.routes, counted)
      })
    )
  })

/** The proxy on MongoDB: the server on a jongodb database of its own, the id map in the same database. */
class MongoFixture extends Context.Service<
  MongoFixture,
  { readonly v1Url: string; readonly admin: HDNodeWallet; readonly team: string }
>()("test/migrate/ProxyMongo") {}

const MongoFixtureLayer = (mode: Mode) =>
  Layer.effect(
    MongoFixture,
    Effect.gen(function* () {
      const server = yield* startMongoTestServer(mode === "in-process" ? { v1: {} } : {})
      const seeded = yield* seedTeam(server, ["team_employee"], { name: "V1 on Mongo" })
      const admin = Wallet.createRandom()
      yield* addMember(seeded.teamId, admin.address, "team_admin", "admin@mongo.example").pipe(
        Effect.provide(server.context)
      )
      if (mode === "in-process") return { v1Url: server.baseUrl, admin, team: seeded.teamId }
      const idMap = yield* Layer.build(
        MongoV1IdMap.layer.pipe(
          Layer.provide(JongodbDatabase.layerDetected({ uri: server.storage.uri, database: server.storage.database }))
        )
      )
      const proxy = yield* serveProxy({ target: server.baseUrl, port: 0 }).pipe(Effect.provide(idMap))
      return { v1Url: proxy.url, admin, team: seeded.teamId }
    })
  )

for (const mode of ["proxy", "in-process"] as const)
  layer(MongoFixtureLayer(mode), { timeout: 120_000, excludeTestServices: true })(
    `v1 client, ${mode}, on MongoDB`,
    (it) => {
      it.effect("signs in, lists teams and talent; the numbers are kept in the server's MongoDB", () =>
        Effect.gen(function* () {
          const { v1Url, admin, team } = yield* MongoFixture
          const v1m = (method: string, path: string, token?: string) =>
            call({ baseUrl: v1Url } as TestServer, method, path, token === undefined ? {} : { token })
          const challenge = yield* v1m("GET", `/v1/api/siwe?wallet=${admin.address}`)
          const signature = yield* Effect.promise(() => admin.signMessage(challenge.body.data.message))
          const verified = yield* call({ baseUrl: v1Url } as TestServer, "POST", "/v1/api/siwe", {
            body: { wallet: admin.address, message: challenge.body.data.message, signature }
          })
          const token: string = verified.body.data.token
          const teams = yield* v1m("GET", "/v1/teams", token)
          const mine = teams.body.data.find((t: Json) => t.nanoid === team)
          assert.isNumber(mine.id)
          const talent = yield* v1m("GET", `/v1/teams/${mine.id}/talent`, token)
          assert.strictEqual(talent.status, 200, JSON.stringify(talent.body))
          assert.strictEqual(talent.body.data.length, 2)
          for (const member of talent.body.data) assert.isNumber(member.id)
        })
      )
    }
  )
