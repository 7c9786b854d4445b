/**
 * Invoices over real HTTP (issue 38), on SQLite: a contractor bills the team and sees it `submitted`; managers list
 * it; another member neither reads it (404) nor anyone bills a team they are not in (403); cancel and reject with
 * their events delivered to the team's endpoint once each; bad input answers the envelope and changes nothing; the
 * PDF reads back. Paying an invoice is `InvoicePayments.test.ts`.
 */
import { assert, describe, it } from "@effect/vitest"
import { pdfText } from "@svc/adapters/test/PdfText"
import { Effect } from "effect"
import { type CallResult, call, seedTeam, signIn, startTestServer } from "../test/TestServer.ts"
import { startReceiver } from "../test/WebhookReceiver.ts"

const assertError = (response: CallResult, status: number, code: string) => {
  assert.strictEqual(response.status, status, JSON.stringify(response.body))
  assert.strictEqual(response.body.success, false)
  assert.strictEqual(response.body.error_code, code, JSON.stringify(response.body))
}

const timeEntries = {
  type: "time_entry",
  hourly_rate_usd_cents: 9000,
  time_entries: [
    { date: "2026-03-02", hours: 6, minutes: 20, notes: "Ledger migration" },
    { date: "2026-03-03", hours: 1, minutes: 40 }
  ]
}

describe("invoices", () => {
  it.live("a contractor bills the team; managers list it, another member cannot read it; cancel, reject, PDF", () =>
    Effect.gen(function* () {
      const server = yield* startTestServer
      const { teamId, members } = yield* seedTeam(server, [
        "team_admin",
        "team_contractor",
        "team_employee",
        "team_viewer"
      ])
      const [admin, contractor, employee, viewer] = yield* Effect.forEach(members, (m) => signIn(server, m.account))
      const other = yield* seedTeam(server, ["team_admin"], { name: "Other" })
      const receiver = yield* startReceiver()
      const hook = yield* call(server, "POST", "/v2/webhooks", {
        token: admin,
        body: { team_nanoid: teamId, url: receiver.url, events: ["invoice.created", "invoice.canceled"], name: "books" }
      })
      assert.strictEqual(hook.status, 200, JSON.stringify(hook.body))

      const body = { team_nanoid: teamId, invoice_number: "2026-007", ...timeEntries }
      const created = yield* call(server, "POST", "/v2/invoices", { token: contractor, body })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const invoice = created.body.data
      assert.match(invoice.nanoid, /^iv-[\w-]{12}$/)
      assert.deepStrictEqual(
        [invoice.invoice_status, invoice.amount_cents, invoice.time_entries[1].notes, invoice.recipient_nanoid],
        ["submitted", 72_000, "", members[1]?.user]
      )
      const seen = yield* call(server, "GET", `/v2/invoices/${invoice.nanoid}`, { token: contractor })
      assert.deepStrictEqual(seen.body.data, invoice)

      // Refused, each with its code, and nothing stored.
      assertError(yield* call(server, "POST", "/v2/invoices", { token: contractor, body }), 409, "INVOICE_NUMBER_TAKEN")
      assertError(
        yield* call(server, "POST", "/v2/invoices", {
          token: contractor,
          body: { ...body, invoice_number: "2026-008", amount_cents: 71_999 }
        }),
        400,
        "INVOICE_AMOUNT_MISMATCH"
      )
      for (const bad of [
        { team_nanoid: teamId, invoice_number: "F-1" },
        { team_nanoid: teamId, invoice_number: "F-1", amount_cents: 0 },
        { team_nanoid: teamId, invoice_number: "", amount_cents: 100 },
        { team_nanoid: teamId, invoice_number: "F-1", amount_cents: 100, time_entries: timeEntries.time_entries },
        { ...body, invoice_number: "F-1", time_entries: [{ date: "2026-02-30", hours: 1 }] },
        { ...body, invoice_number: "F-1", surprise: true }
      ]) {
        assertError(
          yield* call(server, "POST", "/v2/invoices", { token: contractor, body: bad }),
          400,
          "VALIDATION_ERROR"
        )
      }
      const flat = { team_nanoid: teamId, invoice_number: "F-1", amount_cents: 100 }
      assertError(
        yield* call(server, "POST", "/v2/invoices", { token: admin, body: flat }),
        403,
        "INSUFFICIENT_PERMISSIONS"
      )
      assertError(
        yield* call(server, "POST", "/v2/invoices", {
          token: contractor,
          body: { ...flat, team_nanoid: other.teamId }
        }),
        403,
        "INSUFFICIENT_PERMISSIONS"
      )

      // Who sees what.
      const listed = yield* call(server, "GET", `/v2/invoices?team_nanoid=${teamId}`, { token: viewer })
      assert.deepStrictEqual(listed.body.data, { items: [invoice], next_cursor: null })
      const own = yield* call(server, "GET", `/v2/invoices?team_nanoid=${teamId}`, { token: employee })
      assert.deepStrictEqual(own.body.data.items, [])
      assertError(
        yield* call(server, "GET", `/v2/invoices/${invoice.nanoid}`, { token: employee }),
        404,
        "INVOICE_NOT_FOUND"
      )
      assertError(yield* call(server, "GET", "/v2/invoices/nope", { token: admin }), 404, "INVALID_ID")
      assertError(
        yield* call(server, "GET", `/v2/invoices?team_nanoid=${teamId}&limit=0`, { token: admin }),
        400,
        "VALIDATION_ERROR"
      )

      // The PDF.
      const pdf = yield* Effect.promise(() =>
        fetch(`${server.baseUrl}/v2/invoices/${invoice.nanoid}/pdf`, { headers: { authorization: `Bearer ${admin}` } })
      )
      assert.strictEqual(pdf.status, 200)
      assert.strictEqual(pdf.headers.get("content-type"), "application/pdf")
      const text = yield* pdfText(new Uint8Array(yield* Effect.promise(() => pdf.arrayBuffer())))
      for (const expected of ["Invoice 2026-007", "Ledger migration", "720.00 USD", "Submitted, unpaid"]) {
        assert.include(text, expected)
      }
      assertError(
        yield* call(server, "GET", `/v2/invoices/${invoice.nanoid}/pdf`, { token: employee }),
        404,
        "INVOICE_NOT_FOUND"
      )

      // Rejected by the team with a reason; then cancelling it is refused.
      assertError(
        yield* call(server, "POST", `/v2/invoices/${invoice.nanoid}/reject`, { token: admin, body: { reason: "" } }),
        400,
        "VALIDATION_ERROR"
      )
      const rejected = yield* call(server, "POST", `/v2/invoices/${invoice.nanoid}/reject`, {
        token: admin,
        body: { reason: "Not agreed" }
      })
      assert.deepStrictEqual([rejected.body.data.invoice_status, rejected.body.data.reason], ["rejected", "Not agreed"])
      assertError(
        yield* call(server, "DELETE", `/v2/invoices/${invoice.nanoid}`, { token: contractor }),
        409,
        "INVALID_STATE_TRANSITION"
      )
      // Another one, cancelled by its author.
      const second = yield* call(server, "POST", "/v2/invoices", { token: contractor, body: flat })
      const canceled = yield* call(server, "DELETE", `/v2/invoices/${second.body.data.nanoid}`, { token: contractor })
      assert.strictEqual(canceled.body.data.invoice_status, "canceled")

      // Each event reached the endpoint once: created, rejected, created, canceled, in the team's order.
      const deliveries = yield* receiver.waitFor(4)
      // Deliveries of different events are not ordered: the team's sequence orders them.
      const events = deliveries.map((d) => JSON.parse(d.body)).sort((a, b) => a.sequence - b.sequence)
      assert.deepStrictEqual(
        events.map((e) => [e.event_type, e.data.nanoid, e.data.status]),
        [
          ["invoice.created", invoice.nanoid, "submitted"],
          ["invoice.canceled", invoice.nanoid, "rejected"],
          ["invoice.created", second.body.data.nanoid, "submitted"],
          ["invoice.canceled", second.body.data.nanoid, "canceled"]
        ]
      )
      assert.strictEqual(new Set(events.map((e) => e.id)).size, 4)
    }).pipe(Effect.scoped)
  )
})
