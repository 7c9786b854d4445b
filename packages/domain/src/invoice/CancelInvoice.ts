/** DELETE /v2/invoices/{iv}: the member who billed it withdraws an invoice nothing of which is paid or being paid. */
import { Effect } from "effect"
import type { InvoiceId } from "../Ids.ts"
import { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import type { Caller } from "../user/Caller.ts"
import { closeInvoice } from "./InvoiceClosing.ts"
import { invoiceFor } from "./InvoiceSteps.ts"

/** Cancels the caller's own invoice, with `invoice.canceled`; a manager who may see it is told to reject it instead. */
export const cancelInvoice = Effect.fn("Invoices.cancel")(function* (caller: Caller, id: InvoiceId) {
  const { invoice, team } = yield* invoiceFor(caller, id, "invoices.read")
  if (invoice.recipient_nanoid !== caller.nanoid) {
    return yield* new InsufficientPermissions({
      message: "Only the member who billed it may cancel an invoice; the team rejects one instead"
    })
  }
  return yield* closeInvoice(invoice, team, "cancel")
})
