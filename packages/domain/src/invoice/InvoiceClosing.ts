/**
 * Closing an unpaid invoice: its author cancels it, or a finance role rejects it. Either is `invoice.canceled` (a
 * rejection with its reason), written with the state in one unit, and only while nothing of it is paid or being paid.
 */
import { Effect } from "effect"
import type { Team } from "../team/Team.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Invoice } from "./Invoice.ts"
import { InvoiceClosed } from "./InvoiceErrors.ts"
import { holdIsLive } from "./InvoiceHolds.ts"
import { InvoiceMachine } from "./InvoiceMachine.ts"
import { changedInvoice, type InvoiceChange, InvoiceRepository } from "./InvoiceRepository.ts"
import { invoiceEventOf, invoiceViewOf, nowIso } from "./InvoiceSteps.ts"

const done = { cancel: "canceled", reject: "rejected" } as const

/** Why `invoice` cannot be closed by `trigger` now, or `undefined` when it can. */
const whyNot = Effect.fn("InvoiceClosing.whyNot")(function* (invoice: Invoice, trigger: "cancel" | "reject") {
  const refused = (message: string) => new InvoiceClosed({ nanoid: invoice.nanoid, message })
  switch (invoice.state) {
    case "paid":
      return refused(`The invoice is paid; a paid invoice cannot be ${done[trigger]}`)
    case "partially_paid":
      return refused(`Part of the invoice is paid; it can no longer be ${done[trigger]}`)
    case "canceled":
    case "rejected":
      return refused(`The invoice was ${invoice.state} already`)
    case "submitted":
      return (yield* holdIsLive(invoice.hold))
        ? refused(
            `A payment of the invoice is under way (being executed, or registered for later); it cannot be ${done[trigger]} unless that payment fails or is canceled`
          )
        : undefined
  }
})

/**
 * Closes `invoice` by `trigger` (with `reason` for a rejection), tried again on a fresh read when it changed meanwhile
 * (a hold taken or let go); answers the invoice as the routes show it.
 */
export const closeInvoice = Effect.fn("InvoiceClosing.closeInvoice")(function* (
  read: Invoice,
  team: Team,
  trigger: "cancel" | "reject",
  reason?: string
) {
  let invoice = read
  for (let attempt = 0; attempt < 3; attempt++) {
    const refused = yield* whyNot(invoice, trigger)
    if (refused !== undefined) return yield* refused
    const to = yield* InvoiceMachine.transition(invoice.state, trigger).pipe(Effect.orDie)
    const change: InvoiceChange = {
      revision: invoice.revision,
      patch: { updated_at: yield* nowIso, hold: null, ...(reason === undefined ? {} : { reason }) }
    }
    const event = yield* invoiceEventOf(changedInvoice(invoice, to, change), team, "invoice.canceled")
    const closed = yield* withEvents(
      InvoiceRepository.use((invoices) => invoices.transition(invoice.nanoid, invoice.state, to, change)),
      () => [event]
    ).pipe(Effect.catchTag("StaleState", () => Effect.succeed(undefined)))
    if (closed !== undefined) return invoiceViewOf(closed)
    invoice = yield* InvoiceRepository.use((invoices) => invoices.findById(read.nanoid))
  }
  return yield* new InvoiceClosed({ nanoid: read.nanoid, message: "The invoice keeps changing; try again" })
})
