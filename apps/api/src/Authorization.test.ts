/**
 * Walks the authorisation matrix (docs/authorization.md) over real HTTP: every role on every route that names a team,
 * and a member of team A on every such route naming team B.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import type { TeamId, UserId } from "@svc/domain/Ids"
import { type Action, Permissions, type Role } from "@svc/domain/membership"
import { Effect } from "effect"
import {
  call,
  placeholderSignature,
  placeholderTypedData,
  type SeededMember,
  seedTeam,
  signIn,
  startTestServer
} from "../test/TestServer.ts"

const roles: ReadonlyArray<Role> = [
  "team_admin",
  "team_finance_admin",
  "team_viewer",
  "team_employee",
  "team_contractor"
]

interface Route {
  readonly action: Action
  readonly method: string
  readonly path: string
  readonly body?: unknown
  /** The route is about the caller (self-service). */
  readonly self?: boolean
}

const signature = placeholderSignature
const wallet = (byte: string) => `0x${byte.repeat(20)}`
/** A well-formed signed payments message (SPEC §2.7): the routes must refuse on permission before looking at it. */
const typedData = placeholderTypedData(wallet("ab"), wallet("cd"))
const ghost = "us-ghostghost00" as UserId

/** Every route that names `team`; `other` is another member of it, `me` the caller. */
const routesFor = (team: TeamId, other: UserId, me: UserId): ReadonlyArray<Route> => [
  { action: "team.read", method: "GET", path: `/v2/teams/${team}` },
  { action: "team.update", method: "PUT", path: `/v2/teams/${team}`, body: {} },
  { action: "team.users.list", method: "GET", path: `/v2/teams/${team}/users` },
  { action: "member.summary", method: "GET", path: `/v2/teams/${team}/member/${other}/summary` },
  { action: "member.summary", method: "GET", path: `/v2/teams/${team}/member/${me}/summary`, self: true },
  { action: "member.remove", method: "DELETE", path: `/v2/teams/${team}/member/${ghost}` },
  { action: "member.block", method: "PUT", path: `/v2/teams/${team}/member/${ghost}/block`, body: { blocked: true } },
  { action: "team.settings.read", method: "GET", path: `/v2/teams/${team}/settings` },
  { action: "team.settings.update", method: "PUT", path: `/v2/teams/${team}/settings`, body: {} },
  { action: "member.settings.read", method: "GET", path: `/v2/teams/${team}/member/${other}/settings` },
  { action: "member.settings.read", method: "GET", path: `/v2/teams/${team}/member/${me}/settings`, self: true },
  { action: "member.settings.update", method: "PUT", path: `/v2/teams/${team}/member/${other}/settings`, body: {} },
  { action: "payments.read", method: "GET", path: `/v2/payments?team_nanoid=${team}` },
  { action: "payments.receivable", method: "GET", path: `/v2/payments?team_nanoid=${team}&query_type=receivable` },
  {
    action: "payments.create",
    method: "POST",
    path: "/v2/payments",
    body: {
      from: team,
      to: [{ to: other, amount_cents: 100, currency_symbol: "USD", invoice_description: "x" }],
      pay_now: true
    }
  },
  {
    action: "payments.execute",
    method: "PUT",
    path: "/v2/payments",
    body: {
      from: team,
      to: [{ to: other, amount_cents: 100, currency_symbol: "USD", invoice_description: "x" }],
      pay_now: true,
      signer: `0x${"ab".repeat(20)}`,
      typed_data: typedData,
      signature
    }
  },
  {
    action: "payments.create",
    method: "POST",
    path: "/v2/payments/external_entity/instant",
    body: { from: team, amount_cents: 100, payment_data: {}, external_recipient_email: "x@y.example" }
  },
  { action: "balance.read", method: "GET", path: `/v2/balance?nanoid=${team}` },
  { action: "payments.read", method: "GET", path: `/v2/pay_schedules?team_nanoid=${team}` },
  {
    action: "payments.create",
    method: "POST",
    path: "/v2/pay_schedules",
    body: {
      team_nanoid: team,
      to: [{ to: other, amount_cents: 100 }],
      interval: "weekly",
      first_pay_at: "2099-01-01T00:00:00.000Z",
      count: 1
    }
  },
  { action: "balance.read", method: "GET", path: `/v2/cash_requirements?team_nanoid=${team}` },
  {
    action: "invoices.create",
    method: "POST",
    path: "/v2/invoices",
    body: { team_nanoid: team, invoice_number: `${me}-1`, amount_cents: 100 }
  },
  { action: "invoices.read", method: "GET", path: `/v2/invoices?team_nanoid=${team}`, self: true },
  { action: "invites.read", method: "GET", path: `/v2/invites?nanoid=${team}` },
  {
    action: "invites.create",
    method: "POST",
    path: "/v2/invites",
    body: { nanoid: team, invites: [{ email: "new@x.example" }], role: "team_employee" }
  },
  {
    action: "invites.manager",
    method: "POST",
    path: "/v2/invites/manager",
    body: { nanoid: team, invites: [{ email: "m@x.example", role: "team_viewer", wallet: wallet("cd") }] }
  },
  // Last: it deletes the team.
  { action: "team.delete", method: "DELETE", path: `/v2/teams/${team}` }
]

const allowed = (role: Role, route: Route) =>
  (Permissions[route.action].roles as ReadonlyArray<Role>).includes(role) ||
  (Permissions[route.action].self && route.self === true)

describe("authorisation matrix", () => {
  it("docs/authorization.md lists the same roles per action as Permissions", () => {
    const doc = readFileSync(new URL("../../../docs/authorization.md", import.meta.url), "utf8")
    for (const [action, rule] of Object.entries(Permissions)) {
      const row = doc.split("\n").find((line) => line.split("|")[1]?.trim() === action)
      assert.isDefined(row, `row for ${action}`)
      const cells = (row ?? "")
        .split("|")
        .map((c) => c.trim())
        .slice(3, 8)
      const expected = roles.map((role) =>
        (rule.roles as ReadonlyArray<Role>).includes(role)
          ? "yes"
          : rule.self && role.match(/employee|contractor/)
            ? "self"
            : "no"
      )
      assert.deepStrictEqual(cells, expected, action)
    }
  })

  it.live("every role on every route of its own team: allowed ones pass, others answer 403", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      for (const role of roles) {
        // A fresh team per role: the walk ends by deleting it.
        const { teamId, members } = yield* seedTeam(server, [role, "team_admin", "team_employee"])
        const [me, , other] = members as [SeededMember, SeededMember, SeededMember]
        const token = yield* signIn(server, me.account)
        for (const route of routesFor(teamId, other.user, me.user)) {
          const response = yield* call(server, route.method, route.path, { token, body: route.body })
          const label = `${role} ${route.method} ${route.path} -> ${response.status} ${JSON.stringify(response.body)}`
          if (allowed(role, route)) {
            assert.notStrictEqual(response.status, 403, label)
            assert.isTrue(response.status < 500 || response.status === 501, label)
          } else {
            assert.strictEqual(response.status, 403, label)
            assert.strictEqual(response.body.error_code, "INSUFFICIENT_PERMISSIONS", label)
          }
        }
      }
    }).pipe(Effect.scoped)
  )

  it.live("a member of team A, whatever the role, is refused on every route naming team B", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const a = yield* seedTeam(server, roles)
      const b = yield* seedTeam(server, ["team_admin", "team_employee"], { name: "Team B" })
      const bMember = b.members[1] as SeededMember
      for (const member of a.members) {
        const token = yield* signIn(server, member.account)
        for (const route of routesFor(b.teamId, bMember.user, bMember.user)) {
          const response = yield* call(server, route.method, route.path, { token, body: route.body })
          const label = `${member.role} of A: ${route.method} ${route.path} -> ${response.status}`
          assert.strictEqual(response.status, 403, label)
          assert.strictEqual(response.body.error_code, "INSUFFICIENT_PERMISSIONS", label)
        }
      }
      // Team B is untouched.
      const bAdmin = yield* signIn(server, (b.members[0] as SeededMember).account)
      const team = yield* call(server, "GET", `/v2/teams/${b.teamId}`, { token: bAdmin })
      assert.strictEqual(team.status, 200)
      assert.strictEqual(team.body.data.name, "Team B")
    }).pipe(Effect.scoped)
  )
})
