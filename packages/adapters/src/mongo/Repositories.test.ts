/**
 * One contract suite for the repository ports, run against the memory adapter and against MongoDB (jongodb).
 */
import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { NonceStore } from "@svc/domain/auth"
import { CompanyRepository } from "@svc/domain/company"
import type { CompanyId, MembershipId, TeamId, UserId } from "@svc/domain/Ids"
import { MembershipRepository } from "@svc/domain/membership"
import { defaultTeamSettings, SettingsRepository, TeamRepository } from "@svc/domain/team"
import { newUser, UserRepository } from "@svc/domain/user"
import { Effect, Exit, Layer, Option } from "effect"
import { inject } from "vitest"
import { type ClaimResult, IdempotencyStore, leaseMillis } from "../http/IdempotencyStore.ts"
import * as MemoryRepositories from "../memory/MemoryRepositories.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import * as MongoIdempotencyStore from "./MongoIdempotencyStore.ts"
import * as MongoNonceStore from "./MongoNonceStore.ts"
import * as MongoRepositories from "./MongoRepositories.ts"
import { transactionsSerialized } from "./MongoTransaction.ts"

const team = (n: number, company: CompanyId) => ({
  nanoid: `te-${String(n).padStart(12, "0")}` as TeamId,
  company_nanoid: company,
  name: `Team ${n}`,
  description: "",
  avatar: "",
  svc_account: "",
  status: "active" as const,
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z"
})
const userId = (n: number) => `us-${String(n).padStart(12, "0")}` as UserId
const wallet = (n: number) => `0x${n.toString(16).padStart(40, "0")}`

const tokenOf = (claim: ClaimResult) => {
  if (claim._tag !== "Claimed") throw new Error(`expected a claim, got ${claim._tag}`)
  return claim.token
}

const suites = {
  memory: () => Layer.mergeAll(MemoryRepositories.layer, IdempotencyStore.layerMemory, NonceStore.layerMemory),
  mongo: () =>
    Layer.mergeAll(MongoRepositories.layer, MongoIdempotencyStore.layer, MongoNonceStore.layer).pipe(
      Layer.provideMerge(MongoDatabase.layer({ uri: inject("mongoUri"), database: `repos_${randomUUID()}` }))
    )
}

for (const [name, makeLayer] of Object.entries(suites)) {
  describe(`repositories (${name})`, () => {
    it.live("users: unique wallet, case-insensitive lookup", () =>
      Effect.gen(function* () {
        const users = yield* UserRepository
        const alice = newUser({
          nanoid: userId(1),
          wallet: wallet(0xa).toUpperCase().replace("0X", "0x"),
          email: "A@x.io",
          created_at: "t"
        })
        yield* users.insert(alice)
        const again = yield* Effect.exit(users.insert({ ...alice, nanoid: userId(2) }))
        assert.isTrue(Exit.isFailure(again))
        const found = yield* users.findByWallet(wallet(0xa))
        assert.strictEqual(Option.getOrThrow(found).nanoid, userId(1))
        assert.strictEqual(Option.getOrThrow(found).email, "a@x.io")
        assert.isTrue(Option.isNone(yield* users.findById(userId(2))))
        assert.strictEqual((yield* users.findByIds([userId(1), userId(3)])).length, 1)
      }).pipe(Effect.provide(makeLayer()))
    )

    it.live("teams and companies: insert, find, update", () =>
      Effect.gen(function* () {
        const companies = yield* CompanyRepository
        const teams = yield* TeamRepository
        const co = "co-000000000001" as CompanyId
        yield* companies.insert({
          nanoid: co,
          avatar: "",
          name: "Acme",
          website: "",
          blockchain_address: "",
          incorporation_country: "US",
          incorporation_type: "sole_proprietorship",
          address: { line_1: "", line_2: "", city: "", state: "", country: "", zip_code: "", timezone: "" },
          admin_contact: { fullname: "", phone: "", email: "" },
          private_data: { tax_id: "" },
          created_at: "t"
        })
        assert.strictEqual(Option.getOrThrow(yield* companies.findById(co)).name, "Acme")
        yield* teams.insert(team(1, co))
        yield* teams.insert(team(2, co))
        const updated = yield* teams.update(team(1, co).nanoid, { name: "Renamed" })
        assert.strictEqual(Option.getOrThrow(updated).name, "Renamed")
        assert.isTrue(Option.isNone(yield* teams.update("te-999999999999" as TeamId, { name: "x" })))
        assert.strictEqual((yield* teams.listByCompany(co)).length, 2)
        assert.strictEqual((yield* teams.findByIds([team(2, co).nanoid])).length, 1)
      }).pipe(Effect.provide(makeLayer()))
    )

    it.live("memberships: unique per team and user, ordered, filtered, paged, counted, removed", () =>
      Effect.gen(function* () {
        const memberships = yield* MembershipRepository
        const t = "te-000000000001" as TeamId
        for (let i = 1; i <= 5; i++) {
          yield* memberships.insert({
            nanoid: `re-${String(i).padStart(12, "0")}` as MembershipId,
            team_nanoid: t,
            user_nanoid: userId(i),
            role: i === 1 ? "team_admin" : "team_employee",
            email: `U${i}@x.io`,
            created_at: `2026-01-01T00:00:0${i}.000Z`
          })
        }
        const dup = yield* Effect.exit(
          memberships.insert({
            nanoid: "re-000000000099" as MembershipId,
            team_nanoid: t,
            user_nanoid: userId(1),
            role: "team_viewer",
            email: "",
            created_at: "z"
          })
        )
        assert.isTrue(Exit.isFailure(dup))
        const page = yield* memberships.listTeam(t, { offset: 1, limit: 2 })
        assert.deepStrictEqual(
          page.members.map((m) => m.user_nanoid),
          [userId(2), userId(3)]
        )
        assert.strictEqual(page.total, 5)
        const filtered = yield* memberships.listTeam(t, {
          emails: ["u4@X.io", "nobody@x.io"],
          offset: 0,
          limit: undefined
        })
        assert.deepStrictEqual(
          filtered.members.map((m) => m.user_nanoid),
          [userId(4)]
        )
        const admins = yield* memberships.listTeam(t, { roles: ["team_admin"], offset: 0, limit: undefined })
        assert.strictEqual(admins.total, 1)
        const other = "te-000000000002" as TeamId
        const empty = "te-000000000003" as TeamId
        yield* memberships.insert({
          nanoid: "re-000000000050" as MembershipId,
          team_nanoid: other,
          user_nanoid: userId(1),
          role: "team_viewer",
          email: "u1@x.io",
          created_at: "2026-01-01T00:00:09.000Z"
        })
        const counts = yield* memberships.countByTeams([t, other, empty])
        assert.deepStrictEqual([counts.get(t), counts.get(other), counts.get(empty)], [5, 1, 0])
        assert.isTrue(yield* memberships.remove(t, userId(5)))
        assert.isFalse(yield* memberships.remove(t, userId(5)))
        assert.isTrue(Option.isNone(yield* memberships.find(t, userId(5))))
        assert.strictEqual((yield* memberships.listByUser(userId(1))).length, 2)
      }).pipe(Effect.provide(makeLayer()))
    )

    it.live("settings: absent until put, then replaced", () =>
      Effect.gen(function* () {
        const settings = yield* SettingsRepository
        const t = "te-000000000001" as TeamId
        assert.isTrue(Option.isNone(yield* settings.getTeam(t)))
        yield* settings.putTeam(t, defaultTeamSettings)
        yield* settings.putTeam(t, { ...defaultTeamSettings, invoice_prefix: "INV" })
        assert.strictEqual(Option.getOrThrow(yield* settings.getTeam(t)).invoice_prefix, "INV")
        const member = { hourly_rate_usd_cents: 5000, payment_notifications: false, default_invoice_description: "x" }
        yield* settings.putMember(t, userId(1), member)
        assert.deepStrictEqual(Option.getOrThrow(yield* settings.getMember(t, userId(1))), member)
        assert.isTrue(Option.isNone(yield* settings.getMember(t, userId(2))))
      }).pipe(Effect.provide(makeLayer()))
    )

    it.live("sign-in nonces: consumed once, with their svcid, never after expiry, one winner of a race", () =>
      Effect.gen(function* () {
        const nonces = yield* NonceStore
        const now = 1_000_000
        const address = wallet(7) as `0x${string}`
        yield* nonces.issue({ nonce: "n1", wallet: address, expiresAt: now + 300_000, svcid: "svc-1" })
        // Another wallet's attempt changes nothing: the nonce stays its owner's.
        assert.strictEqual(
          (yield* Effect.flip(nonces.consume("n1", wallet(8) as `0x${string}`, now)))._tag,
          "NonceNotFound"
        )
        assert.deepStrictEqual(
          yield* nonces.consume("n1", address.toUpperCase().replace("0X", "0x") as `0x${string}`, now),
          {
            nonce: "n1",
            wallet: address,
            expiresAt: now + 300_000,
            svcid: "svc-1"
          }
        )
        assert.strictEqual((yield* Effect.flip(nonces.consume("n1", address, now)))._tag, "NonceNotFound")
        yield* nonces.issue({ nonce: "n2", wallet: address, expiresAt: now })
        assert.strictEqual((yield* Effect.flip(nonces.consume("n2", address, now)))._tag, "NonceExpired")
        assert.strictEqual((yield* Effect.flip(nonces.consume("never-issued", address, now)))._tag, "NonceNotFound")
        for (let round = 0; round < 20; round++) {
          yield* nonces.issue({ nonce: `race-${round}`, wallet: address, expiresAt: now + 300_000 })
          const race = yield* Effect.all(
            Array.from({ length: 10 }, () => Effect.exit(nonces.consume(`race-${round}`, address, now))),
            { concurrency: "unbounded" }
          )
          assert.strictEqual(race.filter(Exit.isSuccess).length, 1, `round ${round}`)
        }
      }).pipe(Effect.provide(makeLayer()))
    )

    it.live("idempotency keys: claim, running, mismatch, replay, lapse, release", () =>
      Effect.gen(function* () {
        const store = yield* IdempotencyStore
        const key = { scope: "us-1", key: "k1" }
        const now = 1_000_000
        const first = yield* store.claim(key, "h1", now)
        assert.strictEqual(first._tag, "Claimed")
        assert.strictEqual((yield* store.claim(key, "h1", now + 1))._tag, "Running")
        assert.strictEqual((yield* store.claim(key, "h2", now + 1))._tag, "Mismatch")
        yield* store.complete(
          key,
          tokenOf(first),
          { status: 201, body: "{}", contentType: "application/json" },
          now + 2
        )
        const replay = yield* store.claim(key, "h1", now + 3)
        assert.deepStrictEqual(replay, {
          _tag: "Completed",
          response: { status: 201, body: "{}", contentType: "application/json" }
        })
        assert.strictEqual((yield* store.claim(key, "h1", now + 2 + 24 * 3600 * 1000 + 1))._tag, "Claimed")
        const other = { scope: "us-1", key: "k2" }
        const otherClaim = yield* store.claim(other, "h", now)
        assert.strictEqual(otherClaim._tag, "Claimed")
        yield* store.release(other, tokenOf(otherClaim))
        assert.strictEqual((yield* store.claim(other, "h", now))._tag, "Claimed")
        const concurrent = yield* Effect.all(
          Array.from({ length: 8 }, () => store.claim({ scope: "us-2", key: "race" }, "h", now)),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(concurrent.filter((r) => r._tag === "Claimed").length, 1)
      }).pipe(Effect.provide(makeLayer()))
    )

    it.live("idempotency keys: the lease outlasts the slowest request; a stale holder changes nothing", () =>
      Effect.gen(function* () {
        const store = yield* IdempotencyStore
        const key = { scope: "us-1", key: "slow" }
        const now = 1_000_000
        const stale = yield* store.claim(key, "h", now)
        // PUT /v2/payments may take 120 s for a receipt plus 30 s waiting for another replica.
        assert.strictEqual((yield* store.claim(key, "h", now + 150_000))._tag, "Running")

        // The lease lapses (the holder hangs); a retry takes the key over with a claim of its own.
        const lapsed = now + leaseMillis + 1
        const retry = yield* store.claim(key, "h", lapsed)
        assert.strictEqual(retry._tag, "Claimed")
        assert.notStrictEqual(tokenOf(retry), tokenOf(stale))
        // The first holder finishing late neither stores its answer nor frees the retry's key.
        yield* store.complete(
          key,
          tokenOf(stale),
          { status: 200, body: "stale", contentType: "text/plain" },
          lapsed + 1
        )
        yield* store.release(key, tokenOf(stale))
        assert.strictEqual((yield* store.claim(key, "h", lapsed + 2))._tag, "Running")
        yield* store.complete(
          key,
          tokenOf(retry),
          { status: 200, body: "retry", contentType: "text/plain" },
          lapsed + 3
        )
        yield* store.complete(
          key,
          tokenOf(stale),
          { status: 200, body: "stale", contentType: "text/plain" },
          lapsed + 4
        )
        yield* store.release(key, tokenOf(stale))
        yield* store.release(key, tokenOf(retry))
        assert.deepStrictEqual(yield* store.claim(key, "h", lapsed + 5), {
          _tag: "Completed",
          response: { status: 200, body: "retry", contentType: "text/plain" }
        })

        // Concurrent retries of a lapsed claim: exactly one takes it over.
        for (let round = 0; round < 5; round++) {
          const raced = { scope: "us-2", key: `lapsed-${round}` }
          const holder = yield* store.claim(raced, "h", now)
          const claims = yield* Effect.all(
            Array.from({ length: 8 }, () => store.claim(raced, "h", now + leaseMillis + 1)),
            { concurrency: "unbounded" }
          )
          const won = claims.filter((c) => c._tag === "Claimed")
          assert.strictEqual(won.length, 1, `round ${round}: ${JSON.stringify(claims)}`)
          assert.notStrictEqual(tokenOf(won[0] as ClaimResult), tokenOf(holder))
          assert.isTrue(claims.every((c) => c._tag === "Claimed" || c._tag === "Running"))
        }
      }).pipe(Effect.provide(makeLayer()))
    )
  })
}

describe("MongoDatabase", () => {
  it.live("queues transactions on jongodb, which cannot overlap them, and only there", () =>
    Effect.gen(function* () {
      const { client } = yield* MongoDatabase
      const { version } = yield* Effect.promise(() => client.db("admin").command({ buildInfo: 1 }))
      assert.strictEqual(transactionsSerialized(client), String(version).includes("jongodb"))
    }).pipe(Effect.provide(MongoDatabase.layer({ uri: inject("mongoUri"), database: `db_${randomUUID()}` })))
  )
})
