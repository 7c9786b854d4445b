/**
 * The bad-input sweep: every route, fed wrong types, missing and extra fields, huge strings, malformed JSON, a wrong
 * content type and an oversized body, answers only 4xx envelopes (never a 5xx), and writes nothing.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  call,
  placeholderSignature,
  placeholderTypedData,
  type SeededMember,
  seedTeam,
  signIn,
  sqliteOf,
  startTestServer,
  type TestServer
} from "./TestServer.ts"

interface BodyRoute {
  readonly method: string
  readonly path: string
  readonly valid: Record<string, unknown>
  readonly required: ReadonlyArray<string>
}

/** Every table of the server's database: its row count, and the teams and team settings as stored. */
const snapshot = (server: TestServer) =>
  Effect.scoped(
    Effect.map(sqliteOf(server), (db) => {
      const tables = db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        .all()
        .map((row) => String(row.name))
      const counts = Object.fromEntries(
        tables.map((name) => [name, db.prepare(`SELECT count(*) AS n FROM "${name}"`).get()?.n])
      )
      const teams = db.prepare("SELECT * FROM teams ORDER BY nanoid").all()
      const settings = db.prepare("SELECT * FROM team_settings ORDER BY team_nanoid").all()
      return JSON.stringify({ counts, teams, settings })
    })
  )

const wrongValues = (value: unknown): ReadonlyArray<unknown> => {
  if (typeof value === "string") return [42, true, null, [], {}, "x".repeat(200_000)]
  if (typeof value === "number") return ["100", -1, 1.5, null, 1e300, []]
  if (typeof value === "boolean") return ["true", 1, null]
  if (Array.isArray(value)) return ["[]", {}, null, [null], Array.from({ length: 1001 }, () => value[0])]
  return ["{}", [], null, 7]
}

describe("bad-input sweep", () => {
  it.live("every route answers 4xx envelopes to bad input, never 5xx, and writes nothing", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, companyId, members } = yield* seedTeam(server, ["team_admin", "team_employee"])
      const [admin, employee] = members as [SeededMember, SeededMember]
      const token = yield* signIn(server, admin.account)
      const user = employee.user
      const payment = { to: user, amount_cents: 100, currency_symbol: "USD", invoice_description: "x" }
      const bodyRoutes: ReadonlyArray<BodyRoute> = [
        {
          method: "POST",
          path: "/v2/auth/verify",
          valid: { message: "hello", sig: `0x${"11".repeat(65)}`, nonce: "0123456789abcdef" },
          required: ["message", "sig", "nonce"]
        },
        {
          method: "POST",
          path: "/v2/teams",
          valid: { name: "New team", description: "d", entity_nanoid: companyId, admin_wallet: admin.account.address },
          required: ["name", "entity_nanoid", "admin_wallet"]
        },
        { method: "PUT", path: `/v2/teams/${teamId}`, valid: { name: "Renamed", description: "d" }, required: [] },
        {
          method: "PUT",
          path: `/v2/teams/${teamId}/settings`,
          valid: { default_pay_now: false, invoice_prefix: "X", payment_reminder_days: 1 },
          required: []
        },
        {
          method: "PUT",
          path: `/v2/teams/${teamId}/member/${user}/settings`,
          valid: { hourly_rate_usd_cents: 1, payment_notifications: false, default_invoice_description: "d" },
          required: []
        },
        {
          method: "POST",
          path: "/v2/payments",
          valid: { from: teamId, to: [payment], pay_now: true, network: "arbitrum" },
          required: ["from", "to", "pay_now"]
        },
        {
          method: "PUT",
          path: "/v2/payments",
          valid: {
            from: teamId,
            to: [payment],
            pay_now: true,
            signer: admin.account.address,
            typed_data: placeholderTypedData(admin.account.address, admin.account.address),
            signature: placeholderSignature
          },
          required: ["from", "to", "pay_now", "signer", "typed_data", "signature"]
        },
        {
          method: "POST",
          path: "/v2/payments/external_entity/instant",
          valid: { from: teamId, amount_cents: 100, payment_data: {}, external_recipient_email: "a@b.example" },
          required: ["from", "amount_cents", "payment_data", "external_recipient_email"]
        },
        {
          method: "POST",
          path: "/v2/invites",
          valid: { nanoid: teamId, invites: [{ email: "a@b.example" }], role: "team_employee" },
          required: ["nanoid", "invites", "role"]
        },
        {
          method: "POST",
          path: "/v2/invites/manager",
          valid: {
            nanoid: teamId,
            invites: [{ email: "a@b.example", role: "team_viewer", wallet: admin.account.address }]
          },
          required: ["nanoid", "invites"]
        },
        {
          method: "PUT",
          path: "/v2/invites/manager",
          valid: {
            invites: ["in-000000000001"],
            signer: admin.account.address,
            typed_data: {
              from: admin.account.address,
              to: admin.account.address,
              salt: "1",
              expires: "1",
              data: [{ role: "team_viewer", account: admin.account.address }]
            },
            signature: `0x${"1b".repeat(65)}`
          },
          required: ["invites", "signer", "typed_data", "signature"]
        },
        {
          method: "POST",
          path: "/v2/webhooks/test/wh-000000000001",
          valid: { event_type: "payment.sent", version: 2 },
          required: ["event_type"]
        }
      ]
      const queryRoutes: ReadonlyArray<{ path: string; valid: Record<string, string> }> = [
        { path: "/v2/auth/siwe", valid: { wallet: admin.account.address } },
        { path: `/v2/teams/${teamId}/users`, valid: { page: "1", count: "10" } },
        { path: "/v2/payments", valid: { team_nanoid: teamId, state: "all", query_type: "payable" } },
        { path: "/v2/invites", valid: { nanoid: teamId } },
        { path: "/v2/balance", valid: { nanoid: teamId } }
      ]
      const pathRoutes: ReadonlyArray<[string, string]> = [
        ["GET", `/v2/teams/{id}`],
        ["PUT", `/v2/teams/{id}`],
        ["DELETE", `/v2/teams/{id}`],
        ["GET", `/v2/teams/{id}/users`],
        ["GET", `/v2/teams/{id}/settings`],
        ["GET", `/v2/teams/${teamId}/member/{id}/summary`],
        ["DELETE", `/v2/teams/${teamId}/member/{id}`],
        ["GET", `/v2/teams/${teamId}/member/{id}/settings`],
        ["GET", "/v2/webhooks/{id}"]
      ]

      const before = yield* snapshot(server)
      const seen: Array<string> = []
      const expect4xx = (label: string, response: { status: number; body: unknown }) => {
        seen.push(label)
        assert.isTrue(response.status >= 400 && response.status < 500, `${label} -> ${response.status}`)
        const body = response.body as Record<string, unknown>
        assert.deepStrictEqual(Object.keys(body).sort(), ["data", "error_code", "success"], label)
        assert.strictEqual(body.success, false, label)
        assert.isString(body.data, label)
        assert.match(String(body.error_code), /^[A-Z_]+$/, label)
      }

      for (const route of bodyRoutes) {
        const send = (options: Parameters<typeof call>[3]) =>
          call(server, route.method, route.path, { token, ...options })
        const label = `${route.method} ${route.path}`
        for (const raw of ["{", '{"a":', "not json", "[]", "null", '"text"', "123", ""]) {
          if (raw === "" && route.required.length === 0) continue
          expect4xx(`${label} raw ${raw}`, yield* send({ rawBody: raw }))
        }
        expect4xx(
          `${label} text/plain`,
          yield* send({ rawBody: JSON.stringify(route.valid), headers: { "content-type": "text/plain" } })
        )
        expect4xx(`${label} extra field`, yield* send({ body: { ...route.valid, unexpected: 1 } }))
        expect4xx(
          `${label} oversized`,
          yield* send({ rawBody: JSON.stringify({ ...route.valid, pad: "x".repeat(1_100_000) }) })
        )
        for (const field of route.required) {
          const { [field]: _, ...missing } = route.valid
          expect4xx(`${label} missing ${field}`, yield* send({ body: missing }))
        }
        for (const [field, value] of Object.entries(route.valid)) {
          for (const wrong of wrongValues(value)) {
            expect4xx(
              `${label} ${field}=${JSON.stringify(wrong).slice(0, 40)}`,
              yield* send({ body: { ...route.valid, [field]: wrong } })
            )
          }
        }
      }
      for (const route of queryRoutes) {
        const get = (query: Record<string, string>) =>
          call(server, "GET", `${route.path}?${new URLSearchParams(query)}`, { token })
        expect4xx(`GET ${route.path} extra param`, yield* get({ ...route.valid, unexpected: "1" }))
        for (const field of Object.keys(route.valid)) {
          for (const wrong of ["", "-1", "abc", "x".repeat(20_000), "te-", "0x"]) {
            const response = yield* get({ ...route.valid, [field]: wrong })
            if (response.status < 300) continue // some values are valid for some fields (e.g. any page number)
            expect4xx(`GET ${route.path} ${field}=${wrong.slice(0, 20)}`, response)
          }
        }
      }
      for (const [method, template] of pathRoutes) {
        for (const id of ["te-short", "us-0000000000000", "xx-000000000000", "%00", "x".repeat(300)]) {
          const response = yield* call(server, method, template.replace("{id}", id), {
            token,
            ...(method === "PUT" ? { body: {} } : {})
          })
          expect4xx(`${method} ${template} id=${id.slice(0, 20)}`, response)
        }
      }
      expect4xx("unknown route", yield* call(server, "GET", "/v2/nowhere", { token }))
      expect4xx("unknown method", yield* call(server, "PATCH", `/v2/teams/${teamId}`, { token, body: {} }))
      const after = yield* snapshot(server)
      assert.strictEqual(after, before)
      assert.isAbove(seen.length, 300)
    }).pipe(Effect.scoped)
  )
})
