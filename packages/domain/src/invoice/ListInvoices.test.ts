import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { flatInvoice, invoiceUseCases, seedInvoicing } from "../../test/InvoiceKit.ts"
import { createInvoice } from "./CreateInvoice.ts"
import { listInvoices } from "./ListInvoices.ts"

describe("listInvoices", () => {
  it.effect("managers see every invoice of the team, newest first, in pages; a member sees their own", () =>
    Effect.gen(function* () {
      const { team, employee, contractor, viewer, outsider } = yield* seedInvoicing
      const mine = yield* createInvoice(employee, flatInvoice(team, "E-1", 100))
      const first = yield* createInvoice(contractor, flatInvoice(team, "C-1", 200))
      const second = yield* createInvoice(contractor, flatInvoice(team, "C-2", 300))
      const all = yield* listInvoices(viewer, { team_nanoid: team })
      assert.deepStrictEqual(
        all.items.map((i) => i.nanoid),
        [second.nanoid, first.nanoid, mine.nanoid]
      )
      assert.isNull(all.next_cursor)
      const page = yield* listInvoices(viewer, { team_nanoid: team, limit: 2 })
      assert.lengthOf(page.items, 2)
      const rest = yield* listInvoices(viewer, { team_nanoid: team, limit: 2, cursor: page.next_cursor ?? "" })
      assert.deepStrictEqual(
        rest.items.map((i) => i.nanoid),
        [mine.nanoid]
      )
      assert.isNull(rest.next_cursor)
      const own = yield* listInvoices(employee, { team_nanoid: team })
      assert.deepStrictEqual(
        own.items.map((i) => i.nanoid),
        [mine.nanoid]
      )
      assert.deepStrictEqual(yield* listInvoices(employee, { team_nanoid: team, status: "paid" }), {
        items: [],
        next_cursor: null
      })
      const refused = yield* Effect.flip(listInvoices(outsider, { team_nanoid: team }))
      assert.strictEqual(refused._tag, "InsufficientPermissions")
      const edited = yield* Effect.flip(listInvoices(viewer, { team_nanoid: team, cursor: "bm90LWEtY3Vyc29y" }))
      assert.strictEqual(edited._tag, "InvalidPaymentsCursor")
    }).pipe(Effect.provide(invoiceUseCases))
  )
})
