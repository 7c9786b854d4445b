import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { invoiceUseCases, seedInvoicing, timeInvoice } from "../../test/InvoiceKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import type { InvoiceId } from "../Ids.ts"
import { createInvoice } from "./CreateInvoice.ts"
import { rejectInvoice } from "./RejectInvoice.ts"

describe("rejectInvoice", () => {
  it.effect("a finance admin rejects it with a reason, sent as invoice.canceled; a viewer or its author cannot", () =>
    Effect.gen(function* () {
      const { team, finance, viewer, contractor, employee } = yield* seedInvoicing
      const id = (yield* createInvoice(contractor, timeInvoice(team, "C-1"))).nanoid as InvoiceId
      const reason = { reason: "The hours of 6 January were not agreed" }
      assert.strictEqual((yield* Effect.flip(rejectInvoice(viewer, id, reason)))._tag, "InsufficientPermissions")
      assert.strictEqual((yield* Effect.flip(rejectInvoice(contractor, id, reason)))._tag, "InsufficientPermissions")
      assert.strictEqual((yield* Effect.flip(rejectInvoice(employee, id, reason)))._tag, "InvoiceNotFound")
      const rejected = yield* rejectInvoice(finance, id, reason)
      assert.deepStrictEqual([rejected.invoice_status, rejected.reason], ["rejected", reason.reason])
      const canceled = (yield* outboxEvents).at(-1)
      assert.deepStrictEqual(
        [canceled?.event_type, canceled?.data.status, canceled?.data.reason],
        ["invoice.canceled", "rejected", reason.reason]
      )
      const again = yield* Effect.flip(rejectInvoice(finance, id, reason))
      assert.strictEqual(again.message, "The invoice was rejected already")
    }).pipe(Effect.provide(invoiceUseCases))
  )
})
