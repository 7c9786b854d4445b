import { PassThrough } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import { SqliteDatabase, SqliteV1IdMap } from "@svc/adapters/sqlite"
import { placeholderTypedData } from "@svc/api/TestServer"
import { V1IdMap } from "@svc/domain/migration"
import { mapResolver } from "@svc/v1"
import { Effect, Layer } from "effect"
import { type TranslationLine, translateLine, translateStream } from "./Translate.ts"

const team = "te-AAAAAAAAAAAA"
const alice = "us-AAAAAAAAAAAA"
const bob = "us-BBBBBBBBBBBB"
const teamSvcid = `0x${"aa".repeat(20)}`
const aliceSvcid = `0x${"a1".repeat(20)}`
const bobSvcid = `0x${"b0".repeat(20)}`
const wallet = `0x${"cc".repeat(20)}`
const signature = `0x${"1b".repeat(65)}`
const issued = placeholderTypedData(wallet, `0x${"dd".repeat(20)}`)

const idMap = SqliteV1IdMap.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: ":memory:" })), Layer.orDie)

const seeded = Effect.gen(function* () {
  const ids = yield* V1IdMap
  yield* ids.record([
    { kind: "team", v1: "42", nanoid: team },
    { kind: "user", v1: "7", nanoid: alice },
    { kind: "user", v1: "8", nanoid: bob },
    { kind: "svcid", v1: teamSvcid, nanoid: team },
    { kind: "svcid", v1: aliceSvcid, nanoid: alice },
    { kind: "svcid", v1: bobSvcid, nanoid: bob }
  ])
  return mapResolver(ids)
}).pipe(Effect.orDie)

const run = (request: Record<string, unknown>) =>
  Effect.flatMap(seeded, (resolver) => translateLine(resolver, JSON.stringify(request), 1))

const v2Of = (line: TranslationLine) => {
  if ("error" in line) throw new Error(`refused: ${line.error}`)
  return line.v2
}
const errorOf = (line: TranslationLine) => ("error" in line ? line.error : `translated: ${JSON.stringify(line)}`)

const batch = {
  wallet,
  svc_id: teamSvcid,
  total_amount: "3500000",
  payments: [
    { recipient: aliceSvcid, amount: "1000000", salt: 1 },
    { recipient: bobSvcid, amount: 2_500_000, salt: 2 }
  ]
}
const created = {
  from: team,
  to: [
    { to: alice, amount_cents: 100, currency_symbol: "USD", invoice_description: "v1 payment" },
    { to: bob, amount_cents: 250, currency_symbol: "USD", invoice_description: "v1 payment" }
  ],
  pay_now: true,
  network: "arbitrum"
}

describe("translate: every row of SPEC §9.6", () => {
  it.effect("GET /v1/api/siwe and /v1/auth/api/siwe -> GET /v2/auth/siwe (svc_id and rise_id become svcid)", () =>
    Effect.gen(function* () {
      for (const path of ["/v1/api/siwe", "/v1/auth/api/siwe"]) {
        const [only, ...rest] = v2Of(
          yield* run({ method: "GET", path: `${path}?wallet=${wallet}&rise_id=${teamSvcid}` })
        )
        assert.deepStrictEqual(only, { method: "GET", path: "/v2/auth/siwe", query: { wallet, svcid: teamSvcid } })
        assert.strictEqual(rest.length, 0)
      }
      const impersonating = yield* run({ method: "GET", path: "/v1/api/siwe", query: { wallet, impersonate: "a@b.c" } })
      assert.match(errorOf(impersonating), /impersonate/)
    }).pipe(Effect.provide(idMap))
  )

  it.effect("POST /v1/api/siwe and /v1/auth/api/siwe -> POST /v2/auth/verify (the nonce read from the message)", () =>
    Effect.gen(function* () {
      const message = "svc wants you to sign in\n\nNonce: abcdef123456\nIssued At: 2026-01-01T00:00:00Z"
      for (const path of ["/v1/api/siwe", "/v1/auth/api/siwe"]) {
        const [only] = v2Of(yield* run({ method: "POST", path, body: { wallet, message, signature } }))
        assert.deepStrictEqual(only, {
          method: "POST",
          path: "/v2/auth/verify",
          body: { message, sig: signature, nonce: "abcdef123456" }
        })
      }
      assert.match(
        errorOf(yield* run({ method: "POST", path: "/v1/api/siwe", body: { message: "no nonce" } })),
        /Nonce/
      )
    }).pipe(Effect.provide(idMap))
  )

  it.effect("GET /v1/teams -> GET /v2/user/teams", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(v2Of(yield* run({ method: "GET", path: "/v1/teams/" })), [
        { method: "GET", path: "/v2/user/teams" }
      ])
    }).pipe(Effect.provide(idMap))
  )

  it.effect("GET /v1/teams/{teamId}/talent -> GET /v2/teams/{team_nanoid}/users, by number, svcid or nanoid", () =>
    Effect.gen(function* () {
      for (const id of ["42", teamSvcid, teamSvcid.toUpperCase().replace("0X", "0x"), team]) {
        assert.deepStrictEqual(v2Of(yield* run({ method: "GET", path: `/v1/teams/${id}/talent` })), [
          { method: "GET", path: `/v2/teams/${team}/users` }
        ])
      }
      assert.match(errorOf(yield* run({ method: "GET", path: "/v1/teams/43/talent" })), /Unknown v1 team id 43/)
    }).pipe(Effect.provide(idMap))
  )

  it.effect("GET and DELETE /v1/teams/{teamId}/talent/{talentId} -> member summary and member removal", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(v2Of(yield* run({ method: "GET", path: "/v1/teams/42/talent/7" })), [
        { method: "GET", path: `/v2/teams/${team}/member/${alice}/summary` }
      ])
      assert.deepStrictEqual(v2Of(yield* run({ method: "DELETE", path: `/v1/teams/42/talent/${bobSvcid}` })), [
        { method: "DELETE", path: `/v2/teams/${team}/member/${bob}` }
      ])
      assert.match(errorOf(yield* run({ method: "DELETE", path: "/v1/teams/42/talent/99" })), /member id 99/)
    }).pipe(Effect.provide(idMap))
  )

  it.effect("PUT and POST /v1/payments/batch-pay -> POST then PUT /v2/payments, base units to cents", () =>
    Effect.gen(function* () {
      for (const method of ["PUT", "POST"]) {
        const [post, put] = v2Of(yield* run({ method, path: "/v1/payments/batch-pay", body: batch }))
        assert.deepStrictEqual(post, { method: "POST", path: "/v2/payments", body: created })
        assert.deepStrictEqual(put, {
          method: "PUT",
          path: "/v2/payments",
          body: { ...created, signer: wallet, typed_data: "$0.data.typed_data", signature: "$signature" }
        })
      }
      // Signed already (the v1 POST carrying `request` and `signature`): the execution alone.
      const [only, ...rest] = v2Of(
        yield* run({ method: "POST", path: "/v1/payments/batch-pay", body: { ...batch, request: issued, signature } })
      )
      assert.deepStrictEqual(only, {
        method: "PUT",
        path: "/v2/payments",
        body: { ...created, signer: wallet, typed_data: issued, signature }
      })
      assert.strictEqual(rest.length, 0)
    }).pipe(Effect.provide(idMap))
  )

  it.effect("a v1 payment's invoice_description (or description) is its v2 entry's invoice description", () =>
    Effect.gen(function* () {
      const described = {
        ...batch,
        payments: [
          { recipient: aliceSvcid, amount: "1000000", invoice_description: "March retainer" },
          { recipient: bobSvcid, amount: "2500000", description: "Design, March" }
        ]
      }
      const [post] = v2Of(yield* run({ method: "PUT", path: "/v1/payments/batch-pay", body: described }))
      assert.deepStrictEqual(
        (post?.body as { to?: ReadonlyArray<{ invoice_description: string }> } | undefined)?.to?.map(
          (e) => e.invoice_description
        ),
        ["March retainer", "Design, March"]
      )
    }).pipe(Effect.provide(idMap))
  )

  it.effect("refuses, never rounds, an amount that is not a whole number of cents; checks total_amount", () =>
    Effect.gen(function* () {
      const fraction = {
        ...batch,
        total_amount: "1000001",
        payments: [{ recipient: aliceSvcid, amount: "1000001", salt: 1 }]
      }
      assert.match(
        errorOf(yield* run({ method: "PUT", path: "/v1/payments/batch-pay", body: fraction })),
        /not a whole number of cents/
      )
      const wrongTotal = { ...batch, total_amount: "1" }
      assert.match(
        errorOf(yield* run({ method: "PUT", path: "/v1/payments/batch-pay", body: wrongTotal })),
        /total_amount/
      )
      const unknown = {
        ...batch,
        total_amount: undefined,
        payments: [{ recipient: `0x${"ee".repeat(20)}`, amount: "10000" }]
      }
      assert.match(
        errorOf(yield* run({ method: "PUT", path: "/v1/payments/batch-pay", body: unknown })),
        /Unknown v1 member/
      )
    }).pipe(Effect.provide(idMap))
  )

  it.effect("PUT and POST /v1/payments/pay -> POST then PUT /v2/payments for one recipient", () =>
    Effect.gen(function* () {
      for (const method of ["PUT", "POST"]) {
        const [post, put] = v2Of(
          yield* run({
            method,
            path: "/v1/payments/pay",
            body: { wallet, svc_id: teamSvcid, recipient: aliceSvcid, amount: "1000000" }
          })
        )
        assert.deepStrictEqual(post?.body, { ...created, to: [created.to[0]] })
        assert.strictEqual(put?.method, "PUT")
      }
    }).pipe(Effect.provide(idMap))
  )

  it.effect("POST /v1/payments/batch-pay/intents (and batch-pay-intents) -> the same with pay_now false", () =>
    Effect.gen(function* () {
      for (const path of ["/v1/payments/batch-pay/intents", "/v1/payments/batch-pay-intents"]) {
        const [post, put] = v2Of(yield* run({ method: "POST", path, body: { ...batch, pay_at_time: 1_900_000_000 } }))
        assert.deepStrictEqual(post?.body, { ...created, pay_now: false, pay_at_time: 1_900_000_000 })
        assert.deepStrictEqual([put?.method, put?.path], ["PUT", "/v2/payments"])
      }
    }).pipe(Effect.provide(idMap))
  )

  it.effect("GET /v1/payments -> GET /v2/payments with the team and recipient mapped", () =>
    Effect.gen(function* () {
      const [only] = v2Of(
        yield* run({ method: "GET", path: "/v1/payments/?team_id=42&state=complete", query: { recipient: "7" } })
      )
      assert.deepStrictEqual(only, {
        method: "GET",
        path: "/v2/payments",
        query: { team_nanoid: team, state: "complete", query_type: "payable", recipient: alice }
      })
    }).pipe(Effect.provide(idMap))
  )

  it.effect("GET /v1/riseid/{id}/balance and /v1/svcid/{id}/balance -> GET /v2/balance?nanoid=", () =>
    Effect.gen(function* () {
      for (const prefix of ["riseid", "svcid"]) {
        assert.deepStrictEqual(v2Of(yield* run({ method: "GET", path: `/v1/${prefix}/${teamSvcid}/balance` })), [
          { method: "GET", path: "/v2/balance", query: { nanoid: team } }
        ])
      }
    }).pipe(Effect.provide(idMap))
  )

  it.effect("GET /v1/invites -> GET /v2/invites", () =>
    Effect.gen(function* () {
      assert.deepStrictEqual(v2Of(yield* run({ method: "GET", path: "/v1/invites/?team_id=42" })), [
        { method: "GET", path: "/v2/invites", query: { nanoid: team } }
      ])
    }).pipe(Effect.provide(idMap))
  )

  it.effect("POST /v1/invites (employees, contractors) and /v1/invites/warmed -> POST /v2/invites", () =>
    Effect.gen(function* () {
      const [plain] = v2Of(
        yield* run({
          method: "POST",
          path: "/v1/invites",
          body: { inviteList: ["A@Example.com"], anonymous: false, company_svcid: teamSvcid, role: "contractor" }
        })
      )
      assert.deepStrictEqual(plain, {
        method: "POST",
        path: "/v2/invites",
        body: { nanoid: team, invites: [{ email: "a@example.com" }], role: "contractor", anonymous: false }
      })
      const [warm] = v2Of(
        yield* run({
          method: "POST",
          path: "/v1/invites/warmed",
          body: { inviteList: [{ email: "b@example.com", firstname: "Bea" }], team_id: "42", role: "employee" }
        })
      )
      assert.deepStrictEqual(warm?.body, {
        nanoid: team,
        invites: [{ email: "b@example.com", prefill: { first_name: "Bea" } }],
        role: "team_employee",
        anonymous: false
      })
      assert.match(
        errorOf(
          yield* run({
            method: "POST",
            path: "/v1/invites",
            body: { inviteList: ["x@y.z"], team_id: "42", role: "client" }
          })
        ),
        /role "client"/
      )
    }).pipe(Effect.provide(idMap))
  )

  it.effect("POST /v1/invites (managers) -> POST then PUT /v2/invites/manager", () =>
    Effect.gen(function* () {
      const [post, put] = v2Of(
        yield* run({
          method: "POST",
          path: "/v1/invites",
          body: { inviteList: [{ email: "m@example.com", wallet }], team_id: "42", role: "team_finance_admin" }
        })
      )
      assert.deepStrictEqual(post, {
        method: "POST",
        path: "/v2/invites/manager",
        body: { nanoid: team, invites: [{ email: "m@example.com", role: "team_finance_admin", wallet }] }
      })
      assert.deepStrictEqual([put?.method, put?.path], ["PUT", "/v2/invites/manager"])
    }).pipe(Effect.provide(idMap))
  )

  it.effect("a v1 call with no v2 equivalent, and a line that is not a request, answer an error line", () =>
    Effect.gen(function* () {
      assert.match(errorOf(yield* run({ method: "GET", path: "/v1/webhooks" })), /has no v2 equivalent/)
      const resolver = yield* seeded
      assert.deepStrictEqual(yield* translateLine(resolver, "not json", 3), { line: 3, error: "Not a JSON object" })
    }).pipe(Effect.provide(idMap))
  )

  it.effect("translateStream answers one line per input line, in order", () =>
    Effect.gen(function* () {
      yield* seeded
      const input = new PassThrough()
      const output = new PassThrough()
      input.end(
        [
          JSON.stringify({ method: "GET", path: "/v1/teams" }),
          "",
          JSON.stringify({ method: "GET", path: "/v1/teams/404/talent" })
        ].join("\n")
      )
      const counts = yield* translateStream(input, output)
      output.end()
      const lines = String(output.read())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
      assert.deepStrictEqual(counts, { translated: 1, refused: 1 })
      assert.deepStrictEqual(
        lines.map((l) => l.line),
        [1, 3]
      )
      assert.match(lines[1].error, /404/)
    }).pipe(Effect.provide(idMap))
  )
})
