/**
 * Issue 38's first criterion over real HTTP, on SQLite and anvil: a contractor signs in and bills the team with time
 * entries, sees it `submitted`; the team's finance lists it and pays it with `{invoice_nanoid}`; the contractor's
 * balance moves by exactly its amount, the invoice is `paid`, the payment's item carries it, and `invoice.created`
 * reached the team's endpoint once. Paying it again is refused before anything is signed, cancelling it is refused,
 * and its PDF holds the number, the total and the transaction hash.
 */
import { assert, layer } from "@effect/vitest"
import { pdfText } from "@svc/adapters/test/PdfText"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Effect } from "effect"
import type { Hex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { addMember, ChainTestServer, call, fundedTeam, signIn } from "../test/TestServer.ts"
import { startReceiver } from "../test/WebhookReceiver.ts"

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

layer(ChainTestServer.layer, { timeout: 180_000, excludeTestServices: true })("paying an invoice", (it) => {
  it.effect("a contractor bills, finance pays the invoice, the balance moves by its amount, it reads paid", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const t = yield* fundedTeam(10_000_000_000n)
      const receiver = yield* startReceiver()
      const hook = yield* call(server, "POST", "/v2/webhooks", {
        token: t.token,
        body: { team_nanoid: t.team, url: receiver.url, events: ["invoice.created", "payment.sent"], name: "books" }
      })
      assert.strictEqual(hook.status, 200, JSON.stringify(hook.body))
      const wallet = privateKeyToAccount(generatePrivateKey())
      const me = yield* addMember(t.team, wallet.address, "team_contractor", "carl@t.example").pipe(
        Effect.provide(server.context)
      )
      const contractor = yield* signIn(server, wallet)

      // The contractor bills the team: 10 h 30 min and 4 h at 120.00 USD an hour, 1,740.00 USD.
      const billed = yield* call(server, "POST", "/v2/invoices", {
        token: contractor,
        body: {
          team_nanoid: t.team,
          invoice_number: "CARL-2026-03",
          type: "time_entry",
          hourly_rate_usd_cents: 12_000,
          time_entries: [
            { date: "2026-03-09", hours: 10, minutes: 30, notes: "Settlement monitor" },
            { date: "2026-03-10", hours: 4, notes: "Review" }
          ]
        }
      })
      assert.strictEqual(billed.status, 200, JSON.stringify(billed.body))
      const invoice = billed.body.data
      assert.deepStrictEqual([invoice.invoice_status, invoice.amount_cents], ["submitted", 174_000])
      const mine = yield* call(server, "GET", `/v2/invoices/${invoice.nanoid}`, { token: contractor })
      assert.strictEqual(mine.body.data.invoice_status, "submitted")

      // Finance lists it and pays it by its id alone.
      const listed = yield* call(server, "GET", `/v2/invoices?team_nanoid=${t.team}&status=submitted`, {
        token: t.token
      })
      assert.deepStrictEqual(
        listed.body.data.items.map((i: Json) => i.nanoid),
        [invoice.nanoid]
      )
      const balance = () =>
        Effect.map(
          call(server, "GET", `/v2/balance?nanoid=${me}`, { token: contractor }),
          (answer) => answer.body.data.balances[0].balance_cents as number
        )
      const before = yield* balance()
      const body = { from: t.team, to: [{ invoice_nanoid: invoice.nanoid }], pay_now: true }
      const issued = yield* call(server, "POST", "/v2/payments", { token: t.token, body })
      assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
      const bundle = issued.body.data as TypedDataBundle
      const signature = yield* Effect.promise(() =>
        privateKeyToAccount(t.adminKey as Hex).signTypedData(signableOf(bundle) as never)
      )
      const put = yield* call(server, "PUT", "/v2/payments", {
        token: t.token,
        body: { ...body, signer: t.admin.address, typed_data: bundle.typed_data, signature }
      })
      assert.strictEqual(put.status, 200, JSON.stringify(put.body))
      const transaction = put.body.data.transaction as string

      assert.strictEqual((yield* balance()) - before, 174_000)
      const paid = (yield* call(server, "GET", `/v2/invoices/${invoice.nanoid}`, { token: contractor })).body.data
      assert.deepStrictEqual([paid.invoice_status, paid.paid_cents], ["paid", 174_000])
      assert.strictEqual(paid.payments[0].transaction, transaction)

      // The payment's item carries the invoice, for finance and, as what it was owed, for the contractor.
      const payable = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}`, { token: t.token })
      const owed = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}&query_type=receivable`, {
        token: contractor
      })
      for (const answer of [payable, owed]) {
        const [item] = answer.body.data.items
        assert.deepInclude(item.invoice, {
          nanoid: invoice.nanoid,
          invoice_number: "CARL-2026-03",
          invoice_status: "paid",
          amount_cents: 174_000,
          synthesized: false
        })
        assert.strictEqual(item.invoice.time_entries.length, 2)
        assert.strictEqual(item.payment.invoice_nanoid, invoice.nanoid)
      }

      // invoice.created reached the endpoint once; payment.sent names the invoice.
      const deliveries = (yield* receiver.waitFor(2)).map((d) => JSON.parse(d.body))
      assert.deepStrictEqual(
        deliveries.map((e: Json) => [e.event_type, e.data.nanoid ?? e.data.invoice_nanoid]).sort(),
        [
          ["invoice.created", invoice.nanoid],
          ["payment.sent", deliveries.find((e: Json) => e.event_type === "payment.sent")?.data.nanoid]
        ].sort()
      )
      assert.strictEqual(
        deliveries.find((e: Json) => e.event_type === "payment.sent")?.data.invoice_nanoid,
        invoice.nanoid
      )
      assert.strictEqual(deliveries.filter((e: Json) => e.event_type === "invoice.created").length, 1)

      // Again: refused before anything is issued to sign; cancelling the paid invoice is refused too.
      const again = yield* call(server, "POST", "/v2/payments", { token: t.token, body })
      assert.strictEqual(again.status, 409, JSON.stringify(again.body))
      assert.strictEqual(again.body.error_code, "INVOICE_NOT_PAYABLE")
      assert.include(again.body.data, invoice.nanoid)
      const cancel = yield* call(server, "DELETE", `/v2/invoices/${invoice.nanoid}`, { token: contractor })
      assert.deepStrictEqual([cancel.status, cancel.body.error_code], [409, "INVALID_STATE_TRANSITION"])

      // The PDF: the number, the total and the transaction.
      const pdf = yield* Effect.promise(() =>
        fetch(`${server.baseUrl}/v2/invoices/${invoice.nanoid}/pdf`, {
          headers: { authorization: `Bearer ${contractor}` }
        })
      )
      const text = yield* pdfText(new Uint8Array(yield* Effect.promise(() => pdf.arrayBuffer())))
      for (const expected of ["Invoice CARL-2026-03", "1,740.00 USD", transaction, "Paid"])
        assert.include(text, expected)
      // Nothing arrived that should not have.
      assert.strictEqual(receiver.received.length, 2)
    }).pipe(Effect.scoped)
  )
})
