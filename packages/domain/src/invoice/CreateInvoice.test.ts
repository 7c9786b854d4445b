import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { flatInvoice, invoiceUseCases, seedInvoicing, timeInvoice } from "../../test/InvoiceKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import { createInvoice } from "./CreateInvoice.ts"
import { InvoiceRepository } from "./InvoiceRepository.ts"

describe("createInvoice", () => {
  it.effect("a contractor bills the team: submitted, the amount from the time entries, invoice.created once", () =>
    Effect.gen(function* () {
      const { team, contractor } = yield* seedInvoicing
      const view = yield* createInvoice(contractor, timeInvoice(team, "2026-001"))
      assert.deepStrictEqual(
        [view.invoice_status, view.amount_cents, view.recipient_nanoid, view.type, view.due_date],
        ["submitted", 78_000, contractor.nanoid, "time_entry", "2026-02-01"]
      )
      assert.strictEqual((yield* InvoiceRepository.use((r) => r.findById(view.nanoid as never))).state, "submitted")
      const events = yield* outboxEvents
      assert.deepStrictEqual(
        events.map((e) => [e.event_type, e.data.nanoid, e.data.amount_cents]),
        [["invoice.created", view.nanoid, 78_000]]
      )
    }).pipe(Effect.provide(invoiceUseCases))
  )

  it.effect("an amount that disagrees with the entries, or a number used before, is refused and stores nothing", () =>
    Effect.gen(function* () {
      const { team, employee } = yield* seedInvoicing
      const wrong = yield* Effect.flip(createInvoice(employee, timeInvoice(team, "A-1", { amount_cents: 77_999 })))
      assert.strictEqual(wrong._tag, "InvoiceAmountMismatch")
      assert.include(wrong.message, "78000")
      // The amount that agrees is taken.
      yield* createInvoice(employee, timeInvoice(team, "A-1", { amount_cents: 78_000 }))
      const taken = yield* Effect.flip(createInvoice(employee, flatInvoice(team, "A-1", 500)))
      assert.strictEqual(taken._tag, "InvoiceNumberTaken")
      assert.strictEqual((yield* outboxEvents).length, 1)
    }).pipe(Effect.provide(invoiceUseCases))
  )

  it.effect("managers do not bill their team, nor anyone a team they are not in", () =>
    Effect.gen(function* () {
      const { team, admin, finance, outsider } = yield* seedInvoicing
      for (const caller of [admin, finance, outsider]) {
        const refused = yield* Effect.flip(createInvoice(caller, flatInvoice(team, "X-1", 100)))
        assert.strictEqual(refused._tag, "InsufficientPermissions")
      }
    }).pipe(Effect.provide(invoiceUseCases))
  )
})
