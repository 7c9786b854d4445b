/**
 * The bad-input sweep: every operation the server documents in `/openapi.json` — a route added without a case here
 * fails the test — fed bad ids, wrong query values, wrong types, missing and extra fields, huge strings, malformed
 * JSON, a wrong content type and an oversized body, answers only 4xx envelopes (never a 5xx), and writes nothing.
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
} from "../test/TestServer.ts"

/** How to call one operation with valid input, so each bad variation differs from it in one place. */
interface Case {
  /** Valid values of the path's parameters. */
  readonly params?: Record<string, string>
  /** A valid query, when the operation takes one. */
  readonly query?: Record<string, string>
  /** A valid body, when the operation takes one, and the fields it cannot do without. */
  readonly body?: Record<string, unknown>
  readonly required?: ReadonlyArray<string>
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

type Field = readonly [name: string, value: unknown, replace: (value: unknown) => Record<string, unknown>]

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Every field of a body, and the fields of its objects and of its arrays' first objects (`to[0].invoice_description`),
 * each with a way to put another value in its place.
 */
const fieldsOf = (body: Record<string, unknown>): ReadonlyArray<Field> =>
  Object.entries(body).flatMap(([name, value]): ReadonlyArray<Field> => {
    const top: Field = [name, value, (other) => ({ ...body, [name]: other })]
    if (isRecord(value)) {
      return [
        top,
        ...fieldsOf(value).map(
          ([inner, innerValue, replace]): Field => [
            `${name}.${inner}`,
            innerValue,
            (other) => ({ ...body, [name]: replace(other) })
          ]
        )
      ]
    }
    const [first, ...rest] = Array.isArray(value) ? value : []
    if (isRecord(first)) {
      return [
        top,
        ...fieldsOf(first).map(
          ([inner, innerValue, replace]): Field => [
            `${name}[0].${inner}`,
            innerValue,
            (other) => ({ ...body, [name]: [replace(other), ...rest] })
          ]
        )
      ]
    }
    return [top]
  })

const badIds = ["te-short", "us-0000000000000", "xx-000000000000", "%00", "x".repeat(300)]
const badQueryValues = ["", "-1", "abc", "x".repeat(20_000), "te-", "0x", "1e309"]
const malformedBodies = ["{", '{"a":', "not json", "[]", "null", '"text"', "123", ""]

/** `/v2/teams/{team_nanoid}` with the case's parameters. */
const pathOf = (template: string, params: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? `{${name}}`)

describe("bad-input sweep", () => {
  it.live("every documented operation answers 4xx envelopes to bad input, never 5xx, and writes nothing", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, companyId, members } = yield* seedTeam(server, ["team_admin", "team_employee"])
      const [admin, employee] = members as [SeededMember, SeededMember]
      const token = yield* signIn(server, admin.account)
      const user = employee.user
      const wallet = admin.account.address
      const team = { team_nanoid: teamId }
      const member = { team_nanoid: teamId, user_nanoid: user }
      const webhook = { webhook_nanoid: "wh-000000000001" }
      const invite = { invite_nanoid: "in-000000000001" }
      const invoice = { invoice_nanoid: "iv-000000000001" }
      const payment = { to: user, amount_cents: 100, currency_symbol: "USD", invoice_description: "x" }
      const cases: Record<string, Case> = {
        "GET /health": {},
        "GET /ready": {},
        "GET /v2/auth/siwe": { query: { wallet } },
        "POST /v2/auth/verify": {
          body: { message: "hello", sig: `0x${"11".repeat(65)}`, nonce: "0123456789abcdef" },
          required: ["message", "sig", "nonce"]
        },
        "POST /v2/auth/refresh": {},
        "GET /v2/user/teams": {},
        "POST /v2/teams": {
          body: { name: "New team", description: "d", entity_nanoid: companyId, admin_wallet: wallet },
          required: ["name", "entity_nanoid", "admin_wallet"]
        },
        "GET /v2/teams/{team_nanoid}": { params: team },
        "PUT /v2/teams/{team_nanoid}": { params: team, body: { name: "Renamed", description: "d" } },
        "DELETE /v2/teams/{team_nanoid}": { params: team },
        "GET /v2/teams/{team_nanoid}/users": { params: team, query: { page: "1", count: "10" } },
        "GET /v2/teams/{team_nanoid}/member/{user_nanoid}/summary": { params: member },
        "DELETE /v2/teams/{team_nanoid}/member/{user_nanoid}": { params: member },
        "PUT /v2/teams/{team_nanoid}/member/{user_nanoid}/block": {
          params: member,
          body: { blocked: true, reason: "x" },
          required: ["blocked"]
        },
        "GET /v2/teams/{team_nanoid}/settings": { params: team },
        "PUT /v2/teams/{team_nanoid}/settings": {
          params: team,
          body: { default_pay_now: false, invoice_prefix: "X", payment_reminder_days: 1 }
        },
        "GET /v2/teams/{team_nanoid}/member/{user_nanoid}/settings": { params: member },
        "PUT /v2/teams/{team_nanoid}/member/{user_nanoid}/settings": {
          params: member,
          body: { hourly_rate_usd_cents: 1, payment_notifications: false, default_invoice_description: "d" }
        },
        "GET /v2/payments": { query: { team_nanoid: teamId, state: "all", query_type: "payable", limit: "10" } },
        "POST /v2/payments": {
          body: { from: teamId, to: [payment], pay_now: true, network: "arbitrum" },
          required: ["from", "to", "pay_now"]
        },
        "PUT /v2/payments": {
          body: {
            from: teamId,
            to: [payment],
            pay_now: true,
            signer: wallet,
            typed_data: placeholderTypedData(wallet, wallet),
            signature: placeholderSignature
          },
          required: ["from", "to", "pay_now", "signer", "typed_data", "signature"]
        },
        "DELETE /v2/payments/intents/{payment_nanoid}": { params: { payment_nanoid: "pa-000000000001" } },
        "POST /v2/payments/external_entity/instant": {
          body: { from: teamId, amount_cents: 100, payment_data: {}, external_recipient_email: "a@b.example" },
          required: ["from", "amount_cents", "payment_data", "external_recipient_email"]
        },
        "GET /v2/invites": { query: { nanoid: teamId } },
        "POST /v2/invites": {
          body: { nanoid: teamId, invites: [{ email: "a@b.example" }], role: "team_employee" },
          required: ["nanoid", "invites", "role"]
        },
        "POST /v2/invites/accept": {
          body: { invite_nanoid: invite.invite_nanoid, token: "t".repeat(43) },
          required: ["invite_nanoid", "token"]
        },
        "POST /v2/invites/reject": {
          body: { invite_nanoid: invite.invite_nanoid, token: "t".repeat(43) },
          required: ["invite_nanoid", "token"]
        },
        "DELETE /v2/invites/{invite_nanoid}": { params: invite },
        "POST /v2/invites/{invite_nanoid}/resend": { params: invite },
        "POST /v2/invites/manager": {
          body: { nanoid: teamId, invites: [{ email: "a@b.example", role: "team_viewer", wallet }] },
          required: ["nanoid", "invites"]
        },
        "PUT /v2/invites/manager": {
          body: {
            invites: [invite.invite_nanoid],
            signer: wallet,
            typed_data: {
              from: wallet,
              to: wallet,
              salt: "1",
              expires: "1",
              data: [{ role: "team_viewer", account: wallet }]
            },
            signature: placeholderSignature
          },
          required: ["invites", "signer", "typed_data", "signature"]
        },
        "POST /v2/webhooks": {
          body: {
            team_nanoid: teamId,
            url: "https://hooks.example/svc",
            events: ["payment.sent"],
            name: "Hook",
            description: "d",
            version: 2
          },
          required: ["team_nanoid", "url", "events", "name"]
        },
        "GET /v2/webhooks": { query: team },
        "GET /v2/webhooks/{webhook_nanoid}": { params: webhook },
        "PUT /v2/webhooks/{webhook_nanoid}": {
          params: webhook,
          body: { url: "https://hooks.example/svc", name: "Hook", is_active: true }
        },
        "DELETE /v2/webhooks/{webhook_nanoid}": { params: webhook },
        "POST /v2/webhooks/{webhook_nanoid}/rotate_secret": { params: webhook },
        "GET /v2/webhooks/{webhook_nanoid}/deliveries": { params: webhook, query: { status: "failed", limit: "10" } },
        "POST /v2/webhooks/{webhook_nanoid}/deliveries/{delivery_nanoid}/retry": {
          params: { ...webhook, delivery_nanoid: "dl-000000000001" }
        },
        "POST /v2/webhooks/{webhook_nanoid}/recover": {
          params: webhook,
          body: { since: "2026-01-01T00:00:00.000Z" },
          required: ["since"]
        },
        "POST /v2/webhooks/test/{webhook_nanoid}": {
          params: webhook,
          body: { event_type: "payment.sent", version: 2 },
          required: ["event_type"]
        },
        "GET /v2/user/withdraw_account": {},
        "POST /v2/user/withdraw_account": { body: { address: wallet }, required: ["address"] },
        "PUT /v2/user/withdraw_account": {
          body: {
            address: wallet,
            typed_data: {
              from: wallet,
              to: wallet,
              salt: "1",
              expires: "1",
              data: { user: admin.user, payoutAddress: wallet }
            },
            address_signature: placeholderSignature,
            wallet_signature: placeholderSignature
          },
          required: ["address", "typed_data", "address_signature", "wallet_signature"]
        },
        "POST /v2/user/withdraw_account/report": {
          body: { change_nanoid: "wa-000000000001", token: "a".repeat(64) },
          required: ["change_nanoid", "token"]
        },
        "GET /v2/balance": { query: { nanoid: teamId } },
        "GET /v2/deposits": { query: { team_nanoid: teamId, limit: "10" } },
        "POST /v2/pay_schedules": {
          body: {
            team_nanoid: teamId,
            to: [{ to: user, amount_cents: 100, invoice_description: "x" }],
            interval: "weekly",
            first_pay_at: "2099-01-01T00:00:00.000Z",
            count: 3
          },
          required: ["team_nanoid", "to", "interval", "first_pay_at", "count"]
        },
        "PUT /v2/pay_schedules": {
          body: {
            team_nanoid: teamId,
            signer: wallet,
            typed_data: {
              from: wallet,
              to: wallet,
              salt: "1",
              expires: "1",
              data: {
                id: `0x${"11".repeat(32)}`,
                token: `0x${"33".repeat(20)}`,
                firstPayAt: "4070908800",
                interval: "weekly",
                count: "3",
                validMinutes: "1440",
                payees: [{ recipient: `0x${"44".repeat(20)}`, amount: "1000000" }]
              }
            },
            signature: placeholderSignature
          },
          required: ["team_nanoid", "signer", "typed_data", "signature"]
        },
        "GET /v2/pay_schedules": { query: { team_nanoid: teamId } },
        "GET /v2/pay_schedules/{pay_schedule_nanoid}": { params: { pay_schedule_nanoid: "ps-000000000001" } },
        "DELETE /v2/pay_schedules/{pay_schedule_nanoid}": { params: { pay_schedule_nanoid: "ps-000000000001" } },
        "GET /v2/cash_requirements": { query: { team_nanoid: teamId } },
        "GET /v2/invoices": { query: { team_nanoid: teamId, status: "submitted", limit: "10" } },
        "POST /v2/invoices": {
          body: { team_nanoid: teamId, invoice_number: "2026-1", amount_cents: 100, invoice_description: "d" },
          required: ["team_nanoid", "invoice_number"]
        },
        "GET /v2/invoices/{invoice_nanoid}": { params: invoice },
        "DELETE /v2/invoices/{invoice_nanoid}": { params: invoice },
        "POST /v2/invoices/{invoice_nanoid}/reject": { params: invoice, body: { reason: "r" }, required: ["reason"] },
        "GET /v2/invoices/{invoice_nanoid}/pdf": { params: invoice }
      }

      const document = (yield* call(server, "GET", "/openapi.json")).body as {
        paths: Record<string, Record<string, unknown>>
      }
      const documented = Object.entries(document.paths).flatMap(([path, operations]) =>
        Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`)
      )
      assert.deepStrictEqual(Object.keys(cases).sort(), documented.sort(), "one sweep case per documented operation")

      const before = yield* snapshot(server)
      const seen: Array<string> = []
      const expect4xx = (label: string, response: { status: number; body: unknown }) => {
        seen.push(label)
        assert.isTrue(response.status >= 400 && response.status < 500, `${label} -> ${response.status}`)
        const body = response.body as Record<string, unknown>
        assert.deepStrictEqual(Object.keys(body).sort(), ["data", "error_code", "request_id", "success"], label)
        assert.strictEqual(body.success, false, label)
        assert.isString(body.data, label)
        assert.match(String(body.error_code), /^[A-Z_]+$/, label)
      }

      for (const [operation, route] of Object.entries(cases)) {
        const [method, template] = operation.split(" ") as [string, string]
        const path = pathOf(template, route.params ?? {})
        const withQuery = (query: Record<string, string>) => `${path}?${new URLSearchParams(query)}`

        for (const name of Object.keys(route.params ?? {})) {
          for (const id of badIds) {
            const response = yield* call(server, method, pathOf(template, { ...route.params, [name]: id }), {
              token,
              ...(route.body === undefined ? {} : { body: route.body })
            })
            expect4xx(`${operation} ${name}=${id.slice(0, 20)}`, response)
          }
        }

        if (route.query !== undefined) {
          const query = route.query
          expect4xx(
            `${operation} extra param`,
            yield* call(server, method, withQuery({ ...query, unexpected: "1" }), { token })
          )
          for (const field of Object.keys(query)) {
            for (const wrong of badQueryValues) {
              const response = yield* call(server, method, withQuery({ ...query, [field]: wrong }), { token })
              if (response.status < 300) continue // some values are valid for some fields (e.g. any page number)
              expect4xx(`${operation} ${field}=${wrong.slice(0, 20)}`, response)
            }
          }
        }

        if (route.body !== undefined) {
          const valid = route.body
          const required = route.required ?? []
          const send = (options: Parameters<typeof call>[3]) => call(server, method, path, { token, ...options })
          for (const raw of malformedBodies) {
            if (raw === "" && required.length === 0) continue
            expect4xx(`${operation} raw ${raw}`, yield* send({ rawBody: raw }))
          }
          expect4xx(
            `${operation} text/plain`,
            yield* send({ rawBody: JSON.stringify(valid), headers: { "content-type": "text/plain" } })
          )
          expect4xx(`${operation} extra field`, yield* send({ body: { ...valid, unexpected: 1 } }))
          expect4xx(
            `${operation} oversized`,
            yield* send({ rawBody: JSON.stringify({ ...valid, pad: "x".repeat(1_100_000) }) })
          )
          for (const field of required) {
            const { [field]: _, ...missing } = valid
            expect4xx(`${operation} missing ${field}`, yield* send({ body: missing }))
          }
          for (const [field, value, replace] of fieldsOf(valid)) {
            for (const wrong of wrongValues(value)) {
              expect4xx(
                `${operation} ${field}=${JSON.stringify(wrong).slice(0, 40)}`,
                yield* send({ body: replace(wrong) })
              )
            }
          }
        }
      }
      expect4xx("unknown route", yield* call(server, "GET", "/v2/nowhere", { token }))
      expect4xx("unknown method", yield* call(server, "PATCH", `/v2/teams/${teamId}`, { token, body: {} }))
      const after = yield* snapshot(server)
      assert.strictEqual(after, before)
      assert.isAbove(seen.length, 600)
    }).pipe(Effect.scoped)
  )
})
