import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { flatInvoice, invoiceUseCases, seedInvoicing } from "../../test/InvoiceKit.ts"
import type { InvoiceId } from "../Ids.ts"
import { createInvoice } from "./CreateInvoice.ts"
import { getInvoice } from "./GetInvoice.ts"

describe("getInvoice", () => {
  it.effect("its author and the team's managers read it; another member or an outsider finds nothing", () =>
    Effect.gen(function* () {
      const { team, admin, employee, contractor, outsider } = yield* seedInvoicing
      const created = yield* createInvoice(contractor, flatInvoice(team, "C-1", 12_345))
      const id = created.nanoid as InvoiceId
      assert.deepStrictEqual(yield* getInvoice(contractor, id), created)
      assert.deepStrictEqual(yield* getInvoice(admin, id), created)
      for (const caller of [employee, outsider]) {
        assert.strictEqual((yield* Effect.flip(getInvoice(caller, id)))._tag, "InvoiceNotFound")
      }
      assert.strictEqual(
        (yield* Effect.flip(getInvoice(admin, "iv-000000000099" as InvoiceId)))._tag,
        "InvoiceNotFound"
      )
    }).pipe(Effect.provide(invoiceUseCases))
  )
})
