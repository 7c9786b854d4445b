/** POST /v2/invoices/{iv}/reject: a team admin or finance admin refuses an unpaid invoice, saying why. */
import { Effect } from "effect"
import type { InvoiceId } from "../Ids.ts"
import { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { isAllowed } from "../membership/Permission.ts"
import type { Caller } from "../user/Caller.ts"
import { closeInvoice } from "./InvoiceClosing.ts"
import type { RejectInvoiceRequest } from "./InvoiceRequests.ts"
import { invoiceFor } from "./InvoiceSteps.ts"

/** Rejects the invoice with the reason, as `invoice.canceled` carrying it. */
export const rejectInvoice = Effect.fn("Invoices.reject")(function* (
  caller: Caller,
  id: InvoiceId,
  body: RejectInvoiceRequest
) {
  const { invoice, team, role } = yield* invoiceFor(caller, id, "invoices.read")
  if (!isAllowed(role, "invoices.reject")) return yield* new InsufficientPermissions({})
  return yield* closeInvoice(invoice, team, "reject", body.reason)
})
