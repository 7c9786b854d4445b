/**
 * What the domain's use-case tests run on: every storage port on an in-memory SQLite database (the real adapter), the
 * test id generator and randomness, and a seeded company and team with callers in each relation to it.
 */
import { SqliteDatabase, SqliteStorage } from "@svc/adapters/sqlite"
import { WebhookSecretBox } from "@svc/adapters/webhooks"
import { Effect, Layer, Redacted, Schema } from "effect"
import { CompanyRepository, newCompany } from "../src/company/index.ts"
import { walletAddressOf } from "../src/Evm.ts"
import { EventOutbox } from "../src/event/index.ts"
import { IdGenerator, type TeamId, type UserId } from "../src/Ids.ts"
import { InviteSettings } from "../src/invite/index.ts"
import { MailOutbox } from "../src/mail/index.ts"
import { MembershipRepository, type Role, TeamAccess } from "../src/membership/index.ts"
import { Executions } from "../src/payment/Executions.ts"
import { Randomness } from "../src/Randomness.ts"
import { TeamBalances, TeamRepository } from "../src/team/index.ts"
import { type Caller, newUser, UserRepository } from "../src/user/index.ts"
import { CreateWebhookRequest, WebhookUrlPolicy } from "../src/webhook/index.ts"

/**
 * Every storage port on a fresh in-memory database, with the test ids and randomness, and the executions' scope
 * (closed with the test's, its executions interrupted at once).
 */
export const storageLayer = SqliteStorage.ports.pipe(
  Layer.provideMerge(SqliteDatabase.layer({ filename: ":memory:" })),
  Layer.provideMerge(
    Layer.mergeAll(IdGenerator.layerTest, Randomness.layerTest(), Executions.layer({ graceMillis: 0 }))
  ),
  Layer.orDie
)

/** The webhook ports beside storage: URLs as `policy` allows, and a secret box with a fixed key. */
export const webhookLayerWith = (policy: { readonly requireHttps: boolean; readonly allowPrivate: boolean }) =>
  Layer.mergeAll(
    WebhookUrlPolicy.layer(policy),
    WebhookSecretBox.layer(Redacted.make("use-case-test-key-0123456789abcdefghijklmnop"))
  ).pipe(Layer.provideMerge(storageLayer))

/** The webhook ports beside storage: https URLs on public hosts only, and a secret box with a fixed key. */
export const webhookLayer = webhookLayerWith({ requireHttps: true, allowPrivate: false })

/** What the team, member and settings use cases run on without a chain: team access, zero balances, invites. */
export const teamUseCases = TeamAccess.layer.pipe(
  Layer.provideMerge(
    Layer.mergeAll(TeamBalances.layerZero, InviteSettings.make({ publicBaseUrl: "https://svc.test/", ttlDays: 7 }))
  ),
  Layer.provideMerge(storageLayer)
)

/** What the webhook use cases run on: team access and the webhook ports, over storage. */
export const webhookUseCases = TeamAccess.layer.pipe(Layer.provideMerge(webhookLayer))

const now = "2026-01-01T00:00:00.000Z"

/** A user, with wallet `0x…n`. */
const userWith = (n: number) =>
  Effect.gen(function* () {
    const nanoid: UserId = yield* IdGenerator.use((ids) => ids.make("user"))
    const wallet = walletAddressOf(`0x${n.toString(16).padStart(40, "0")}`)
    yield* UserRepository.use((u) => u.insert(newUser({ nanoid, wallet, created_at: now }))).pipe(Effect.orDie)
    return { nanoid, wallet } satisfies Caller
  })

/** `user` a member of `team` with `role`. */
const join = (team: TeamId, user: Caller, role: Role) =>
  Effect.gen(function* () {
    const nanoid = yield* IdGenerator.use((ids) => ids.make("membership"))
    yield* MembershipRepository.use((m) =>
      m.insert({ nanoid, team_nanoid: team, user_nanoid: user.nanoid, role, email: "", created_at: now })
    ).pipe(Effect.orDie)
  })

/** A company (`Co`) and its team (`Team`, no account yet), stored as created at `at`. */
export const insertTeam = (at: string) =>
  Effect.gen(function* () {
    const ids = yield* IdGenerator
    const company = yield* ids.make("company")
    const team: TeamId = yield* ids.make("team")
    yield* CompanyRepository.use((c) => c.insert(newCompany({ nanoid: company, name: "Co", created_at: at })))
    yield* TeamRepository.use((t) =>
      t.insert({
        nanoid: team,
        company_nanoid: company,
        name: "Team",
        description: "",
        avatar: "",
        svc_account: "",
        status: "active",
        created_at: at,
        updated_at: at
      })
    )
    return { company, team }
  })

/**
 * A company and a team, with its admin, an employee, and an outsider who belongs to no team; the `k`th of a test (from
 * 0) has users of wallets `3k + 1` to `3k + 3`, so a test may seed several.
 */
export const seedTeamAt = (k: number) =>
  Effect.gen(function* () {
    const { company, team } = yield* insertTeam(now)
    const admin = yield* userWith(3 * k + 1)
    const employee = yield* userWith(3 * k + 2)
    yield* join(team, admin, "team_admin")
    yield* join(team, employee, "team_employee")
    return { company, team, admin, employee, outsider: yield* userWith(3 * k + 3) }
  })

/** A company and a team, with its admin, an employee, and an outsider who belongs to no team. */
export const seedTeam = seedTeamAt(0)

/** A creation body as a client sends it (decoded with the request's own schema). */
export const webhookBody = (
  team: TeamId,
  url = "https://hooks.example.com/svc",
  events: ReadonlyArray<string> = ["payment.sent"]
) => Schema.decodeUnknownSync(CreateWebhookRequest)({ team_nanoid: team, url, events, name: "Books" })

/** Every event in the outbox, oldest first (claimed once, for the test). */
export const outboxEvents = EventOutbox.use((o) =>
  Effect.map(o.claim({ now: Number.MAX_SAFE_INTEGER - 1, limit: 1000, leaseMillis: 1 }), (claimed) =>
    claimed.map(({ event }) => event)
  )
)

/** The single-use tokens of the queued invite mails, by recipient (the mail worker is not running). */
export const mailedTokens = Effect.map(
  MailOutbox.use((o) => o.claim({ now: Number.MAX_SAFE_INTEGER - 1, limit: 100, leaseMillis: 1 })),
  (claimed) => new Map(claimed.map((c) => [c.mail.to, /token=([0-9a-f]{64})/.exec(c.mail.text)?.[1] ?? ""]))
)
