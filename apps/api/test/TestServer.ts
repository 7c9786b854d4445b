/**
 * The server as tests meet it: in-process on a free port, reached over real HTTP, on a SQLite file of its own (removed
 * with the test's scope) or, when asked, on the shared jongodb (or `MONGODB_URI`) with a database of its own. Also the
 * fixtures tests build on: a company with teams and members whose wallets can sign in.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { JongodbDatabase } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { noRateLimits } from "@svc/adapters/http/server"
import { MongoDatabase } from "@svc/adapters/mongo"
import { makeApiClient } from "@svc/contract"
import { ChainGateway, svcAccountSaltOf } from "@svc/domain/chain"
import { CompanyRepository, newCompany } from "@svc/domain/company"
import { IdGenerator, type TeamId, type UserId } from "@svc/domain/Ids"
import type { Mailer } from "@svc/domain/mail"
import { MembershipRepository, type Role } from "@svc/domain/membership"
import { TeamRepository } from "@svc/domain/team"
import { newUser, UserRepository } from "@svc/domain/user"
import { Context, Effect, Layer, Redacted } from "effect"
import { HttpServer } from "effect/http"
import type { Db } from "mongodb"
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import * as Server from "../src/Server.ts"

declare module "vitest" {
  export interface ProvidedContext {
    readonly mongoUri: string
    readonly rpcUrl: string
  }
}

/** A response as tests look at it. */
export interface CallResult {
  readonly status: number
  readonly headers: globalThis.Headers
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
  readonly body: any
}

/** A running test server. */
export interface TestServer {
  readonly baseUrl: string
  readonly jwtSecret: string
  /** Where it keeps its state: a second server started on the same storage shares it, as a second process would. */
  readonly storage: Server.StorageOptions
  readonly context: Context.Context<Layer.Success<ReturnType<typeof Server.layer>>>
}

/** A running test server on MongoDB. */
export interface MongoTestServer extends TestServer {
  /** The server's database, for tests that look at what was stored. */
  readonly db: Db
}

/** What a test server may be started with. */
export interface TestServerOptions {
  /** Another server's storage to share; default a fresh one. */
  readonly storage?: Server.StorageOptions | undefined
  readonly chain?: Layer.Layer<ChainGateway> | undefined
  readonly jwtSecret?: string | undefined
  /** Where mails go; default the log. */
  readonly mailer?: Layer.Layer<Mailer> | undefined
  /** Webhook settings (URL rules, resolver, dispatcher); default: private URLs allowed, DESIGN §5's schedule. */
  readonly webhooks?: Pick<Server.ServerOptions, "webhookUrls" | "webhookResolver" | "webhookDispatcher"> | undefined
  /** Rate limits and timeouts; default no rate limits (the suite sends many requests from one address). */
  readonly limits?:
    | Pick<
        Server.ServerOptions,
        "rateLimits" | "requestTimeoutMillis" | "headersTimeoutMillis" | "shutdownGraceMillis" | "settlementWaitMillis"
      >
    | undefined
  /** Limits on issued payment requests and their sweep; default the server's. */
  readonly issuedRequests?: Server.ServerOptions["issuedRequests"]
  /** How signatures are checked; default the domain's (externally owned accounts), as without a chain. */
  readonly signatureVerifier?: Server.ServerOptions["signatureVerifier"]
  /** `GET /metrics`; default not served. */
  readonly metrics?: Server.ServerOptions["metrics"]
  /** Where spans go; default nowhere (tracing off). */
  readonly traces?: Server.ServerOptions["traces"]
  /** Retention windows and how often the pruning worker runs; default the server's. */
  readonly retention?: Server.ServerOptions["retention"]
  /** Whether answers are counted for `/metrics`; default true. */
  readonly httpMetrics?: boolean | undefined
  /** `/v1` served in-process; default not served. */
  readonly v1?: Server.ServerOptions["v1"]
  /** The web console's build served at `/console`; default not served. */
  readonly console?: Server.ServerOptions["console"]
}

/** A new SQLite file in a temporary directory of its own, removed when the scope closes. */
const freshSqliteFile = Effect.map(
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-api-"))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  ),
  (dir): Server.StorageOptions => ({ _tag: "sqlite", filename: join(dir, "svc.db") })
)

/** Starts a server for the current scope on `storage`, with the chain if given. */
const startOn = Effect.fn("TestServer.startOn")(function* (storage: Server.StorageOptions, options: TestServerOptions) {
  const jwtSecret = options.jwtSecret ?? randomBytes(32).toString("hex")
  const context = yield* Layer.build(
    Server.layer({
      port: 0,
      storage,
      jwtSecret: Redacted.make(jwtSecret),
      logRequests: false,
      chain: options.chain,
      mailer: options.mailer,
      ...options.webhooks,
      issuedRequests: options.issuedRequests,
      signatureVerifier: options.signatureVerifier,
      metrics: options.metrics,
      traces: options.traces,
      retention: options.retention,
      httpMetrics: options.httpMetrics,
      v1: options.v1,
      console: options.console,
      rateLimits: noRateLimits,
      ...options.limits
    })
  )
  const server = yield* HttpServer.HttpServer.pipe(Effect.provide(context))
  return { baseUrl: HttpServer.formatAddress(server.address), jwtSecret, storage, context } satisfies TestServer
})

/** Starts a server for the current scope on a SQLite file of its own (or on `options.storage`). */
export const startTestServerWith = Effect.fn("TestServer.start")(function* (options: TestServerOptions = {}) {
  return yield* startOn(options.storage ?? (yield* freshSqliteFile), options)
})

/** Starts a server for the current scope on a fresh SQLite file, without a chain. */
export const startTestServer = startTestServerWith()

/**
 * Starts a server for the current scope on MongoDB: a fresh database of the test run's server (jongodb, or the one
 * `MONGODB_URI` names), or `options.storage` when it names one.
 */
export const startMongoTestServer = Effect.fn("TestServer.startMongo")(function* (options: TestServerOptions = {}) {
  const storage =
    options.storage?._tag === "mongo"
      ? options.storage
      : { _tag: "mongo" as const, uri: inject("mongoUri"), database: `api_${randomUUID().replaceAll("-", "")}` }
  const server = yield* startOn(storage, options)
  const { db } = yield* MongoDatabase.pipe(
    Effect.provide(yield* Layer.build(JongodbDatabase.layerDetected({ uri: storage.uri, database: storage.database })))
  )
  return { ...server, storage, db } satisfies MongoTestServer
})

/**
 * The server's SQLite database opened beside it, read-only (as another process would), for tests that look at what
 * was stored; closed when the scope closes.
 */
export const sqliteOf = (server: TestServer) =>
  Effect.acquireRelease(
    Effect.suspend(() =>
      server.storage._tag === "sqlite"
        ? Effect.succeed(new DatabaseSync(server.storage.filename, { readOnly: true }))
        : Effect.die(new Error("the server does not run on SQLite"))
    ),
    (db) => Effect.sync(() => db.close())
  )

/** How many rows `table` of the server's SQLite database holds. */
export const countRows = (server: TestServer, table: string) =>
  Effect.scoped(
    Effect.map(sqliteOf(server), (db) => Number(db.prepare(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0))
  )

/** A JSON request over real HTTP; answers status, headers and the parsed body (or the raw text when not JSON). */
export const call = (
  server: Pick<TestServer, "baseUrl">,
  method: string,
  path: string,
  options: {
    readonly token?: string | undefined
    readonly body?: unknown
    readonly rawBody?: string | undefined
    readonly headers?: Record<string, string> | undefined
  } = {}
): Effect.Effect<CallResult> =>
  Effect.promise(async () => {
    const headers: Record<string, string> = { ...options.headers }
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
    let body: string | undefined
    if (options.rawBody !== undefined) body = options.rawBody
    else if (options.body !== undefined) body = JSON.stringify(options.body)
    if (body !== undefined && headers["content-type"] === undefined) headers["content-type"] = "application/json"
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body })
    })
    const text = await response.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = text
    }
    return { status: response.status, headers: response.headers, body: json }
  })

/** Signs in `account` through SIWE and answers the JWT. */
export const signIn = (server: Pick<TestServer, "baseUrl">, account: PrivateKeyAccount) =>
  Effect.gen(function* () {
    const siwe = yield* call(server, "GET", `/v2/auth/siwe?wallet=${account.address}`)
    if (siwe.status !== 200) return yield* Effect.die(new Error(`siwe: ${JSON.stringify(siwe.body)}`))
    const message: string = siwe.body.data.siwe
    const signature = yield* Effect.promise(() => account.signMessage({ message }))
    const verified = yield* call(server, "POST", "/v2/auth/verify", {
      body: { message, sig: signature, nonce: siwe.body.data.nonce }
    })
    if (verified.status !== 200) return yield* Effect.die(new Error(`verify: ${JSON.stringify(verified.body)}`))
    return verified.body.data.jwt as string
  })

/** A member of a seeded team: their wallet, user id and role. */
export interface SeededMember {
  readonly account: PrivateKeyAccount
  readonly user: UserId
  readonly role: Role
  readonly email: string
}

/** Seeds a company with one team whose members have the given roles (fresh wallets); answers ids and members. */
export const seedTeam = (server: TestServer, roles: ReadonlyArray<Role>, options: { readonly name?: string } = {}) =>
  Effect.gen(function* () {
    const ids = yield* IdGenerator
    const companyId = yield* ids.make("company")
    const now = new Date().toISOString()
    yield* CompanyRepository.use((c) => c.insert(newCompany({ nanoid: companyId, name: "Test Co", created_at: now })))
    const teamId: TeamId = yield* ids.make("team")
    yield* TeamRepository.use((t) =>
      t.insert({
        nanoid: teamId,
        company_nanoid: companyId,
        name: options.name ?? "Test Team",
        description: "",
        avatar: "",
        svc_account: "",
        status: "active",
        created_at: now,
        updated_at: now
      })
    )
    const members: Array<SeededMember> = []
    for (const [index, role] of roles.entries()) {
      const account = privateKeyToAccount(generatePrivateKey())
      const user = yield* addMember(teamId, account.address, role, `m${index}-${randomUUID().slice(0, 8)}@test.example`)
      members.push({ account, user, role, email: `m${index}` })
    }
    return { companyId, teamId, members }
  }).pipe(Effect.provide(server.context))

let lastJoined = 0
/** A joining time after every earlier one: members join in the order added, however fast (lists order by it). */
const nextJoiningTime = () => {
  lastJoined = Math.max(Date.now(), lastJoined + 1)
  return new Date(lastJoined).toISOString()
}

/** Adds a user with `wallet` to `team` with `role` (creating the user, named `name` when given); answers its id. */
export const addMember = (
  team: TeamId,
  wallet: string,
  role: Role,
  email: string,
  name?: { readonly first: string; readonly last: string }
) =>
  Effect.gen(function* () {
    const ids = yield* IdGenerator
    const users = yield* UserRepository
    const existing = yield* users.findByWallet(wallet)
    const now = new Date().toISOString()
    const user =
      existing._tag === "Some"
        ? existing.value
        : newUser({
            nanoid: yield* ids.make("user"),
            wallet,
            email,
            first_name: name?.first ?? "Test",
            last_name: name?.last ?? role,
            created_at: now
          })
    if (existing._tag === "None") yield* users.insert(user).pipe(Effect.orDie)
    const membershipId = yield* ids.make("membership")
    yield* MembershipRepository.use((m) =>
      m.insert({
        nanoid: membershipId,
        team_nanoid: team,
        user_nanoid: user.nanoid,
        role,
        email: user.email,
        created_at: nextJoiningTime()
      })
    ).pipe(Effect.orDie)
    return user.nanoid
  })

/** A typed client of the server, authenticated with `token` when given. */
export const client = (server: TestServer, token?: string) => makeApiClient({ baseUrl: server.baseUrl, token })

/** A well-formed signature that signs nothing: for requests that must be refused before any signature check. */
export const placeholderSignature = `0x${"1b".repeat(65)}`

/** Well-formed payments typed data (SPEC §2.7) that no one issued: for permission and validation sweeps. */
export const placeholderTypedData = (from: string, to: string, expires = "1") => ({
  from,
  to,
  salt: "1",
  expires,
  data: {
    payments: [
      {
        id: `0x${"11".repeat(32)}`,
        groupID: `0x${"22".repeat(32)}`,
        payAtTime: "0",
        validMinutes: "0",
        payType: "1",
        token: `0x${"33".repeat(20)}`,
        recipient: `0x${"44".repeat(20)}`,
        amount: "1000000",
        data: "0x"
      }
    ]
  }
})

/** A `ChainTestServer` for the current scope, with `options` (all but the chain) as `startTestServerWith` takes them. */
export const startChainTestServerWith = Effect.fn("ChainTestServer.start")(function* (
  options: Omit<TestServerOptions, "chain"> = {}
) {
  const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl: inject("rpcUrl"), chainId: 42161 })).pipe(
    Effect.orDie
  )
  const server = yield* startTestServerWith({ ...options, chain: Layer.succeedContext(chainContext) })
  const started: ChainTestServer["Service"] = {
    server,
    embedded: Context.get(chainContext, EmbeddedChain),
    gateway: Context.get(chainContext, ChainGateway)
  }
  return started
})

/**
 * On a `ChainTestServer`: a team with one employee and an admin (a fresh key) who owns the team's svc account, minted
 * `usdcUnits` (6 decimals). Answers what tests sign and pay with.
 */
export const fundedTeam = (usdcUnits: bigint) =>
  Effect.gen(function* () {
    const { server, embedded, gateway } = yield* ChainTestServer
    const seeded = yield* seedTeam(server, ["team_employee"])
    const adminKey = generatePrivateKey()
    const admin = privateKeyToAccount(adminKey)
    yield* addMember(seeded.teamId, admin.address, "team_admin", `${admin.address}@t.example`).pipe(
      Effect.provide(server.context)
    )
    const { account } = yield* gateway.createAccount(admin.address, svcAccountSaltOf(seeded.teamId)).pipe(Effect.orDie)
    yield* embedded.mint(account, usdcUnits).pipe(Effect.orDie)
    yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
      Effect.provide(server.context)
    )
    return {
      team: seeded.teamId,
      account,
      admin,
      adminKey,
      token: yield* signIn(server, admin),
      employee: seeded.members[0] as SeededMember
    }
  })

/**
 * A test server on a SQLite file of its own, settling on a fresh suite deployed on the run's anvil, with the chain's
 * extras (faucet, gateway): for tests that pay or grant on chain. One per test file (`layer(ChainTestServer.layer)`).
 */
export class ChainTestServer extends Context.Service<
  ChainTestServer,
  {
    readonly server: TestServer
    readonly embedded: EmbeddedChain["Service"]
    readonly gateway: ChainGateway["Service"]
  }
>()("@svc/api/test/ChainTestServer") {
  /** The server and its chain, for the layer's scope. */
  static readonly layer = Layer.effect(ChainTestServer, startChainTestServerWith())
}
