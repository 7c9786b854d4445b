/**
 * The server as tests meet it: in-process on a free port, on the shared jongodb with a database of its own, reached
 * over real HTTP. Also the fixtures tests build on: a company with teams and members whose wallets can sign in.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { makeApiClient } from "@svc/adapters/http"
import { MongoDatabase } from "@svc/adapters/mongo"
import type { ChainGateway } from "@svc/domain/chain"
import { CompanyRepository } from "@svc/domain/company"
import { IdGenerator, type TeamId, type UserId } from "@svc/domain/Ids"
import { MembershipRepository, type Role } from "@svc/domain/membership"
import { TeamRepository } from "@svc/domain/team"
import { emptyAddress, newUser, UserRepository } from "@svc/domain/user"
import { type Context, Effect, Layer, Redacted } from "effect"
import { HttpServer } from "effect/http"
import type { Db } from "mongodb"
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import * as Server from "./Server.ts"

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
  readonly database: string
  /** The server's database, for tests that look at what was stored. */
  readonly db: Db
  readonly context: Context.Context<Layer.Success<ReturnType<typeof Server.layer>>>
}

/** Starts a server for the current scope on a database (a fresh one unless named), with the chain if given. */
export const startTestServerWith = Effect.fn("TestServer.start")(function* (
  options: { readonly database?: string; readonly chain?: Layer.Layer<ChainGateway>; readonly jwtSecret?: string } = {}
) {
  const database = options.database ?? `api_${randomUUID().replaceAll("-", "")}`
  const jwtSecret = options.jwtSecret ?? randomBytes(32).toString("hex")
  const context = yield* Layer.build(
    Server.layer({
      port: 0,
      mongoUri: inject("mongoUri"),
      database,
      jwtSecret: Redacted.make(jwtSecret),
      logRequests: false,
      chain: options.chain
    })
  )
  const server = yield* HttpServer.HttpServer.pipe(Effect.provide(context))
  const { db } = yield* MongoDatabase.pipe(
    Effect.provide(yield* Layer.build(MongoDatabase.layer({ uri: inject("mongoUri"), database })))
  )
  return { baseUrl: HttpServer.formatAddress(server.address), jwtSecret, database, db, context } satisfies TestServer
})

/** Starts a server for the current scope on a fresh database, without a chain. */
export const startTestServer = startTestServerWith()

/** A JSON request over real HTTP; answers status, headers and the parsed body (or the raw text when not JSON). */
export const call = (
  server: TestServer,
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
export const signIn = (server: TestServer, account: PrivateKeyAccount) =>
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
    yield* CompanyRepository.use((c) =>
      c.insert({
        nanoid: companyId,
        avatar: "",
        name: "Test Co",
        website: "",
        blockchain_address: "",
        incorporation_country: "US",
        incorporation_type: "sole_proprietorship",
        address: emptyAddress,
        admin_contact: { fullname: "", phone: "", email: "" },
        private_data: { tax_id: "" },
        created_at: now
      })
    )
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

/** Adds a user with `wallet` to `team` with `role` (creating the user); answers the user id. */
export const addMember = (team: TeamId, wallet: string, role: Role, email: string) =>
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
            first_name: "Test",
            last_name: role,
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
        created_at: new Date().toISOString()
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
