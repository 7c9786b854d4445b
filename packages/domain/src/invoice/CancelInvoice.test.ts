import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { flatInvoice, invoiceUseCases, seedInvoicing } from "../../test/InvoiceKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import type { InvoiceId, PaymentId } from "../Ids.ts"
import { cancelInvoice } from "./CancelInvoice.ts"
import { createInvoice } from "./CreateInvoice.ts"
import { InvoiceRepository } from "./InvoiceRepository.ts"

describe("cancelInvoice", () => {
  it.effect("its author cancels an unpaid invoice, with invoice.canceled; then it is closed", () =>
    Effect.gen(function* () {
      const { team, admin, contractor } = yield* seedInvoicing
      const id = (yield* createInvoice(contractor, flatInvoice(team, "C-1", 500))).nanoid as InvoiceId
      const byManager = yield* Effect.flip(cancelInvoice(admin, id))
      assert.strictEqual(byManager._tag, "InsufficientPermissions")
      assert.strictEqual((yield* cancelInvoice(contractor, id)).invoice_status, "canceled")
      const events = yield* outboxEvents
      assert.deepStrictEqual(
        events.map((e) => [e.event_type, e.data.status]),
        [
          ["invoice.created", "submitted"],
          ["invoice.canceled", "canceled"]
        ]
      )
      const again = yield* Effect.flip(cancelInvoice(contractor, id))
      assert.deepStrictEqual([again._tag, again.message], ["InvoiceClosed", "The invoice was canceled already"])
    }).pipe(Effect.provide(invoiceUseCases))
  )

  it.effect(
    "a paid invoice is not canceled, and emits nothing; a hold whose request the ledger lost stops nobody",
    () =>
      Effect.gen(function* () {
        const { team, contractor } = yield* seedInvoicing
        const paid = (yield* createInvoice(contractor, flatInvoice(team, "C-1", 500))).nanoid as InvoiceId
        const held = (yield* createInvoice(contractor, flatInvoice(team, "C-2", 500))).nanoid as InvoiceId
        yield* outboxEvents
        const invoices = yield* InvoiceRepository
        yield* invoices.transition(paid, "submitted", "paid", { revision: 0, patch: { paid_cents: 500 } })
        const refused = yield* Effect.flip(cancelInvoice(contractor, paid))
        assert.deepStrictEqual(
          [refused._tag, refused.message],
          ["InvoiceClosed", "The invoice is paid; a paid invoice cannot be canceled"]
        )
        // A hold names a request the ledger does not know (released after a refusal, or gone): it has lapsed.
        const hold = { salt: "1", payment_nanoid: "pa-000000000001" as PaymentId }
        yield* invoices.transition(held, "submitted", "submitted", { revision: 0, patch: { hold } })
        assert.strictEqual((yield* cancelInvoice(contractor, held)).invoice_status, "canceled")
        assert.deepStrictEqual(
          (yield* outboxEvents).map((e) => e.event_type),
          ["invoice.canceled"]
        )
      }).pipe(Effect.provide(invoiceUseCases))
  )
})
