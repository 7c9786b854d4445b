/**
 * The invite use cases of the domain (`Invites`) on SQLite, with the test clock: lifetimes and expiry, and the events
 * each step writes to the outbox in the same step as the change.
 */
import { assert, describe, it } from "@effect/vitest"
import { SqliteDatabase, SqliteStorage } from "@svc/adapters/sqlite"
import { CompanyRepository, newCompany } from "@svc/domain/company"
import { walletAddressOf } from "@svc/domain/Evm"
import type { DomainEvent } from "@svc/domain/event"
import { IdGenerator, type TeamId, type UserId } from "@svc/domain/Ids"
import { CreateInvitesRequest, InviteSettings, Invites } from "@svc/domain/invite"
import { MailOutbox } from "@svc/domain/mail"
import { MembershipRepository, TeamAccess } from "@svc/domain/membership"
import { Randomness } from "@svc/domain/Randomness"
import { TeamRepository } from "@svc/domain/team"
import { type Caller, newUser, UserRepository } from "@svc/domain/user"
import { Effect, Layer, Schema } from "effect"
import { TestClock } from "effect/testing"

const day = 24 * 60 * 60 * 1000

const storage = SqliteStorage.ports.pipe(Layer.provideMerge(SqliteDatabase.layer({ filename: ":memory:" })))
const invitesLayer = Invites.layer.pipe(
  Layer.provideMerge(TeamAccess.layer),
  Layer.provideMerge(InviteSettings.make({ publicBaseUrl: "https://svc.test/", ttlDays: 7 })),
  Layer.provideMerge(Layer.mergeAll(IdGenerator.layerTest, Randomness.layerTest())),
  Layer.provideMerge(storage)
)

/** A company, a team, its admin, and an invitee user; answers the callers. */
const seed = Effect.gen(function* () {
  const ids = yield* IdGenerator
  const company = yield* ids.make("company")
  const team: TeamId = yield* ids.make("team")
  const now = "2026-01-01T00:00:00.000Z"
  yield* CompanyRepository.use((c) => c.insert(newCompany({ nanoid: company, name: "Co", created_at: now })))
  yield* TeamRepository.use((t) =>
    t.insert({
      nanoid: team,
      company_nanoid: company,
      name: "Team",
      description: "",
      avatar: "",
      svc_account: "",
      status: "active",
      created_at: now,
      updated_at: now
    })
  )
  const user = (n: number) =>
    Effect.gen(function* () {
      const nanoid: UserId = yield* ids.make("user")
      const wallet = walletAddressOf(`0x${n.toString(16).padStart(40, "0")}`)
      yield* UserRepository.use((u) => u.insert(newUser({ nanoid, wallet, created_at: now }))).pipe(Effect.orDie)
      return { nanoid, wallet } satisfies Caller
    })
  const admin = yield* user(1)
  const membership = yield* ids.make("membership")
  yield* MembershipRepository.use((m) =>
    m.insert({
      nanoid: membership,
      team_nanoid: team,
      user_nanoid: admin.nanoid,
      role: "team_admin",
      email: "",
      created_at: now
    })
  ).pipe(Effect.orDie)
  return { team, admin, invitee: yield* user(2) }
})

/** The tokens of the queued mails, by recipient (the worker is not running: mails wait in the outbox). */
const queuedTokens = Effect.gen(function* () {
  const claimed = yield* MailOutbox.use((o) =>
    o.claim({ now: Number.MAX_SAFE_INTEGER - 1, limit: 100, leaseMillis: 1 })
  )
  return new Map(claimed.map((c) => [c.mail.to, /token=([0-9a-f]{64})/.exec(c.mail.text)?.[1] ?? ""]))
})

/** Every event in the outbox, oldest first. */
const events = Effect.gen(function* () {
  const { connection } = yield* SqliteDatabase
  return connection
    .prepare("SELECT event FROM event_outbox ORDER BY created, id")
    .all()
    .map((row) => JSON.parse(row.event as string) as DomainEvent)
})

const invite = (team: TeamId, emails: ReadonlyArray<string>) =>
  Schema.decodeUnknownSync(CreateInvitesRequest)({
    nanoid: team,
    invites: emails.map((email) => ({ email })),
    role: "contractor"
  })

describe("invite use cases", () => {
  it.effect("invites expire after their lifetime: a late token fails with 410, the sweep writes invite.expired", () =>
    Effect.gen(function* () {
      const invites = yield* Invites
      const { team, admin, invitee } = yield* seed
      const { nanoids } = yield* invites.create(admin, invite(team, ["late@example.com", "early@example.com"]))
      const tokens = yield* queuedTokens
      assert.strictEqual(yield* invites.expireDue(), 0)
      yield* TestClock.adjust(7 * day - 1)
      assert.strictEqual(yield* invites.expireDue(), 0)
      yield* TestClock.adjust(1)
      // Past its lifetime, before the sweep: refused, and nothing changes.
      const late = yield* Effect.flip(
        invites.accept(invitee, { invite_nanoid: nanoids[0]!, token: tokens.get("late@example.com")! })
      )
      assert.deepStrictEqual([late._tag, late.errorCode], ["InviteExpired", "INVITE_EXPIRED"])
      assert.deepStrictEqual(yield* events, [])
      assert.strictEqual(yield* invites.expireDue(), 2)
      assert.strictEqual(yield* invites.expireDue(), 0)
      const expired = yield* events
      assert.deepStrictEqual(
        expired.map((e) => e.event_type),
        ["invite.expired", "invite.expired"]
      )
      assert.strictEqual(expired[0]?.team_nanoid, team)
      assert.strictEqual((expired[0]!.data as { status: string }).status, "expired")
      assert.strictEqual((expired[0]!.data as { role: string }).role, "team_contractor")
      const revoke = yield* Effect.flip(invites.revoke(admin, nanoids[1]!))
      assert.strictEqual(revoke.errorCode, "INVITE_EXPIRED")
    }).pipe(Effect.provide(invitesLayer))
  )

  it.effect("accepting writes invite.accepted and team.member_added; rejecting writes invite.rejected", () =>
    Effect.gen(function* () {
      const invites = yield* Invites
      const { team, admin, invitee } = yield* seed
      const { nanoids } = yield* invites.create(admin, invite(team, ["ada@example.com", "bob@example.com"]))
      const tokens = yield* queuedTokens
      const accepted = yield* invites.accept(invitee, {
        invite_nanoid: nanoids[0]!,
        token: tokens.get("ada@example.com")!
      })
      assert.deepStrictEqual([accepted.state, accepted.role], ["accepted", "contractor"])
      // Already a member now: a second invite to the same team is refused and stays pending.
      const twice = yield* Effect.flip(
        invites.accept(invitee, { invite_nanoid: nanoids[1]!, token: tokens.get("bob@example.com")! })
      )
      assert.strictEqual(twice.errorCode, "ROLE_CONFLICT")
      const rejected = yield* invites.reject(invitee, {
        invite_nanoid: nanoids[1]!,
        token: tokens.get("bob@example.com")!
      })
      assert.strictEqual(rejected.state, "rejected")
      const written = yield* events
      assert.deepStrictEqual(
        written.map((e) => e.event_type),
        ["invite.accepted", "team.member_added", "invite.rejected"]
      )
      assert.strictEqual((written[0]!.data as { user_nanoid: string }).user_nanoid, invitee.nanoid)
      assert.deepStrictEqual(
        [(written[1]!.data as { role: string }).role, (written[1]!.data as { email: string }).email],
        ["team_contractor", "ada@example.com"]
      )
      const user = yield* UserRepository.use((u) => u.findById(invitee.nanoid))
      assert.strictEqual(user._tag === "Some" ? user.value.email : "", "ada@example.com")
      // Nothing is listed once answered.
      assert.deepStrictEqual(yield* invites.list(admin, team), [])
    }).pipe(Effect.provide(invitesLayer))
  )
})
