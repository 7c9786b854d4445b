/** GET /v2/invoices/{iv}: one invoice, for the member who billed it and the team's managers (404 for anyone else). */
import { Effect } from "effect"
import type { InvoiceId } from "../Ids.ts"
import type { Caller } from "../user/Caller.ts"
import { invoiceFor, liveViewOf } from "./InvoiceSteps.ts"

/** The invoice as the routes answer it. */
export const getInvoice = Effect.fn("Invoices.get")(function* (caller: Caller, id: InvoiceId) {
  const { invoice } = yield* invoiceFor(caller, id, "invoices.read")
  return yield* liveViewOf(invoice)
})
