/**
 * The PDF holds what the invoice says, as text a reader extracts: read back with unpdf (Mozilla's PDF.js, `PdfText`),
 * an implementation of its own, not by parsing what pdfkit wrote.
 */
import { assert, describe, it } from "@effect/vitest"
import { type InvoiceDocument, invoiceLinesOf } from "@svc/domain/invoice"
import { Effect } from "effect"
import { pdfText } from "../../test/PdfText.ts"
import { invoice } from "../contract/Fixtures.ts"
import { printable, renderPdf } from "./PdfInvoiceRenderer.ts"

const transaction = `0x${"ab12".repeat(16)}`

const paid = invoice(1, {
  invoice_number: "INV-2026-014",
  type: "time_entry",
  amount_cents: 123_450,
  hourly_rate_usd_cents: 8230,
  time_entries: [
    { date: "2026-01-05", hours: 8, minutes: 0, notes: "API design" },
    { date: "2026-01-06", hours: 7, minutes: 0, notes: "Straße und Café" }
  ],
  state: "paid",
  paid_cents: 123_450,
  payments: [
    {
      payment_nanoid: "pa-000000000042" as never,
      amount_cents: 123_450,
      transaction,
      block_number: 4242,
      paid_at: "2026-01-20T10:00:00.000Z"
    }
  ]
})

const documentOf = (i: typeof paid): InvoiceDocument => ({
  invoice: i,
  from: { name: "Ada Lovelace", nanoid: "us-000000000002", lines: ["ada@example.com"] },
  to: { name: "Engines, Analytical Co", nanoid: "te-000000000001", lines: [] },
  lines: invoiceLinesOf(i)
})

describe("PdfInvoiceRenderer", () => {
  it.effect("a paid invoice's PDF reads back its number, parties, lines, total, status, transaction and block", () =>
    Effect.gen(function* () {
      const bytes = yield* renderPdf(documentOf(paid))
      assert.strictEqual(new TextDecoder().decode(bytes.slice(0, 5)), "%PDF-")
      const text = yield* pdfText(bytes)
      for (const expected of [
        "Invoice INV-2026-014",
        "Ada Lovelace",
        "Engines, Analytical Co",
        "API design",
        "Straße und Café",
        "1,234.50 USD",
        "Paid",
        transaction,
        "Block 4242"
      ]) {
        assert.include(text, expected)
      }
    })
  )

  it.effect("an unpaid one says so and shows no transaction; text the fonts cannot print becomes ?", () =>
    Effect.gen(function* () {
      const unpaid = invoice(2, { invoice_number: "№ 7 発注", amount_cents: 5000 })
      const text = yield* pdfText(yield* renderPdf(documentOf(unpaid)))
      assert.include(text, "Submitted, unpaid")
      assert.include(text, "50.00 USD")
      assert.include(text, `Invoice ${printable("№ 7 発注")}`)
      assert.notInclude(text, "Transaction")
      assert.strictEqual(printable("№ 7 発注"), "? 7 ??")
    })
  )
})
