/**
 * The payments query over real HTTP on SQLite and anvil (SPEC §2.3, §4.3, docs/decisions/0039): every item carries
 * every field the spec lists; callers who do not page see exactly the spec's shape; `limit` and `cursor` walk the
 * list newest first without repeating or skipping a payment (one batch's payments share a creation time); cursors
 * that were edited or belong to other filters, and parameters out of bounds, are refused with 400.
 */
import { assert, layer } from "@effect/vitest"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Effect } from "effect"
import type { Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { ChainTestServer, call, fundedTeam as fundedTeamOn } from "../test/TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

/** The fields of each object of a payment item, as SPEC §2.3 lists them (`payment.state` is ours). */
const specFields = {
  recipient: [
    "nanoid",
    "svcid",
    "avatar",
    "first_name",
    "middle_name",
    "last_name",
    "company_name",
    "email",
    "address"
  ],
  payer: ["nanoid", "svcid", "avatar", "name"],
  invoice: [
    "amount_cents",
    "documents_ids",
    "group_nanoid",
    "group_onchain_id",
    "hourly_rate_usd_cents",
    "invoice_number",
    "invoice_status",
    "is_aor",
    "nanoid",
    "payer_nanoid",
    "recipient_nanoid",
    "pay_intent_time",
    "svc_sow",
    "time_entries",
    "created_at",
    "updated_at",
    "external_sow_url",
    "invoice_description",
    "payment_details",
    "role_description",
    "services_description",
    "sow_document_nanoid",
    "reason_id",
    "subscription_fee_metadata"
  ],
  payment: [
    "creation_transaction",
    "process_transaction",
    "group_onchain_id",
    "onchain_id",
    "invoice_nanoid",
    "nanoid",
    "payment_group_nanoid",
    "pay_at_time",
    "token_amount",
    "amount_cents",
    "currency_symbol",
    "token_decimals",
    "valid_minutes",
    "created_at",
    "updated_at",
    "v1_metadata"
  ]
} as const

/** A team whose admin owns its funded svc account, with one employee. */
const fundedTeam = fundedTeamOn(10_000_000_000n)

/** Pays `amounts` to the employee in one batch (POST, sign, PUT); its payments share one creation time. */
const payBatch = (t: Effect.Success<typeof fundedTeam>, amounts: ReadonlyArray<number>, payNow = true) =>
  Effect.gen(function* () {
    const { server } = yield* ChainTestServer
    const body = {
      from: t.team,
      to: amounts.map((amount_cents) => ({
        to: t.employee.user,
        amount_cents,
        currency_symbol: "USD",
        invoice_description: `work ${amount_cents}`
      })),
      pay_now: payNow
    }
    const post = yield* call(server, "POST", "/v2/payments", {
      token: t.token,
      body: { ...body, pay_at_time: Math.floor(Date.now() / 1000) + 3600 }
    })
    assert.strictEqual(post.status, 200, JSON.stringify(post.body))
    const bundle = post.body.data as TypedDataBundle
    const signature = yield* Effect.promise(() =>
      privateKeyToAccount(t.adminKey as Hex).signTypedData(signableOf(bundle) as never)
    )
    const put = yield* call(server, "PUT", "/v2/payments", {
      token: t.token,
      body: { ...body, signer: t.admin.address, typed_data: bundle.typed_data, signature }
    })
    assert.strictEqual(put.status, 200, JSON.stringify(put.body))
  })

layer(ChainTestServer.layer, { timeout: 180_000, excludeTestServices: true })("the payments query", (it) => {
  it.effect("every item carries every field of SPEC §2.3, null where the payment has none", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const t = yield* fundedTeam
      yield* payBatch(t, [150])
      const answer = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}`, { token: t.token })
      assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
      const [item] = answer.body.data.items as Array<Json>
      for (const [object, fields] of Object.entries(specFields)) {
        for (const field of fields) assert.property(item[object], field, `${object}.${field}`)
      }
      assert.deepStrictEqual(Object.keys(item.recipient.address).sort(), [
        "city",
        "country",
        "line_1",
        "line_2",
        "state",
        "zip_code"
      ])
      assert.strictEqual(item.invoice.reason_id, null)
      assert.strictEqual(item.invoice.subscription_fee_metadata, null)
      assert.strictEqual(item.payment.v1_metadata, null)
      assert.strictEqual(item.invoice.amount_cents, 150)
    })
  )

  it.effect(
    "limit and cursor walk the list newest first, nothing repeated or skipped; unpaged keeps the spec's shape",
    () =>
      Effect.gen(function* () {
        const { server } = yield* ChainTestServer
        const t = yield* fundedTeam
        yield* payBatch(t, [101, 102, 103, 104, 105])
        yield* payBatch(t, [201, 202])
        const get = (params: string) =>
          call(server, "GET", `/v2/payments?team_nanoid=${t.team}${params}`, { token: t.token })

        const whole = yield* get("")
        assert.strictEqual(whole.status, 200, JSON.stringify(whole.body))
        assert.deepStrictEqual(Object.keys(whole.body), ["data"])
        assert.deepStrictEqual(Object.keys(whole.body.data), ["items"])
        assert.isNull(whole.headers.get("x-next-cursor"))
        const all = (whole.body.data.items as Array<Json>).map((i) => i.payment.nanoid as string)
        assert.strictEqual(all.length, 7)
        // Newest first: the second batch before the first; within a batch (one creation time), by nanoid descending.
        const amounts = (whole.body.data.items as Array<Json>).map((i) => i.invoice.amount_cents as number)
        assert.deepStrictEqual([...amounts.slice(0, 2)].sort(), [201, 202])
        const firstBatch = all.slice(2)
        assert.deepStrictEqual(firstBatch, [...firstBatch].sort().reverse())

        const pages: Array<Array<string>> = []
        let cursor: string | null = null
        for (let round = 0; round < 10; round++) {
          const page: Json = yield* get(`&limit=3${cursor === null ? "" : `&cursor=${cursor}`}`)
          assert.strictEqual(page.status, 200, JSON.stringify(page.body))
          assert.deepStrictEqual(Object.keys(page.body.data).sort(), ["items", "next_cursor"])
          pages.push((page.body.data.items as Array<Json>).map((i) => i.payment.nanoid as string))
          cursor = page.body.data.next_cursor
          assert.strictEqual(page.headers.get("x-next-cursor"), cursor)
          if (cursor === null) break
        }
        assert.deepStrictEqual(
          pages.map((p) => p.length),
          [3, 3, 1]
        )
        assert.deepStrictEqual(pages.flat(), all)
        // A cursor alone pages at the default size.
        const second = yield* get(`&limit=3`)
        const rest = yield* get(`&cursor=${second.body.data.next_cursor}`)
        assert.deepStrictEqual(
          (rest.body.data.items as Array<Json>).map((i) => i.payment.nanoid),
          all.slice(3)
        )
        assert.isNull(rest.body.data.next_cursor)
      })
  )

  it.effect("unpaged, the newest 1000 come back in the spec's shape, and X-Next-Cursor continues with the rest", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const t = yield* fundedTeam
      // 1001 payments in two batches that each fit a block.
      yield* payBatch(
        t,
        Array.from({ length: 401 }, (_, n) => 1 + n)
      )
      yield* payBatch(
        t,
        Array.from({ length: 600 }, (_, n) => 500 + n)
      )
      const whole = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}`, { token: t.token })
      assert.strictEqual(whole.status, 200)
      assert.deepStrictEqual(Object.keys(whole.body.data), ["items"])
      assert.strictEqual(whole.body.data.items.length, 1000)
      const cursor = whole.headers.get("x-next-cursor")
      assert.isString(cursor)
      const rest = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}&cursor=${cursor}`, { token: t.token })
      assert.strictEqual(rest.status, 200, JSON.stringify(rest.body))
      assert.strictEqual(rest.body.data.items.length, 1)
      assert.isNull(rest.body.data.next_cursor)
      const seen = new Set(
        [...whole.body.data.items, ...rest.body.data.items].map((i: Json) => i.invoice.amount_cents as number)
      )
      assert.strictEqual(seen.size, 1001)
    })
  )

  it.effect("malformed, edited or foreign cursors and out-of-range limits answer 400", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const t = yield* fundedTeam
      yield* payBatch(t, [110, 120])
      const get = (params: string) =>
        call(server, "GET", `/v2/payments?team_nanoid=${t.team}${params}`, { token: t.token })
      const first = yield* get("&limit=1")
      const cursor: string = first.body.data.next_cursor
      assert.isString(cursor)
      const edited = `${cursor.slice(0, 10)}${cursor[10] === "A" ? "B" : "A"}${cursor.slice(11)}`
      for (const params of [
        `&cursor=${edited}`,
        `&cursor=${cursor.slice(0, -4)}`,
        `&cursor=${cursor}&state=complete`,
        `&cursor=${cursor}&start_date=2020-01-01`,
        "&cursor=bm90LWEtY3Vyc29y",
        "&cursor=!!!",
        `&cursor=${"A".repeat(201)}`,
        "&cursor=",
        "&limit=0",
        "&limit=1001",
        "&limit=1.5",
        "&limit=ten"
      ]) {
        const bad = yield* get(params)
        assert.strictEqual(bad.status, 400, `${params}: ${JSON.stringify(bad.body)}`)
        assert.strictEqual(bad.body.error_code, "VALIDATION_ERROR", params)
      }
      assert.strictEqual((yield* get(`&cursor=${cursor}&state=all`)).status, 200)
      assert.strictEqual((yield* get("&limit=1000")).status, 200)
      // The bounds are in the contract.
      const openapi = yield* call(server, "GET", "/openapi.json")
      const parameters = openapi.body.paths["/v2/payments"].get.parameters as Array<Json>
      const schemaOf = (name: string) => JSON.stringify(parameters.find((p) => p.name === name)?.schema)
      assert.include(schemaOf("limit"), '"pattern":"^(?:1000|[1-9][0-9]{0,2})$"')
      assert.include(schemaOf("limit"), "1 to 1000")
      assert.include(schemaOf("cursor"), '"maxLength":200')
      assert.include(schemaOf("cursor"), '"pattern":"^[A-Za-z0-9_-]+$"')
    })
  )
})
