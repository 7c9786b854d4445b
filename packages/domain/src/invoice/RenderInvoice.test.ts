import { assert, describe, it } from "@effect/vitest"
import { pdfText } from "@svc/adapters/test/PdfText"
import { Effect } from "effect"
import { invoiceUseCases, seedInvoicing, timeInvoice } from "../../test/InvoiceKit.ts"
import type { InvoiceId } from "../Ids.ts"
import { createInvoice } from "./CreateInvoice.ts"
import { renderInvoice } from "./RenderInvoice.ts"

describe("renderInvoice", () => {
  it.effect("the PDF names both parties, the lines and the total; another member gets nothing", () =>
    Effect.gen(function* () {
      const { team, contractor, admin, employee } = yield* seedInvoicing
      const id = (yield* createInvoice(contractor, timeInvoice(team, "2026-014"))).nanoid as InvoiceId
      const text = yield* pdfText(yield* renderInvoice(admin, id))
      for (const expected of ["Invoice 2026-014", "Ada Lovelace", "Team, Co", "Schema design", "780.00 USD"]) {
        assert.include(text, expected)
      }
      assert.strictEqual((yield* Effect.flip(renderInvoice(employee, id)))._tag, "InvoiceNotFound")
    }).pipe(Effect.provide(invoiceUseCases))
  )
})
