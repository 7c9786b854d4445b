/**
 * What the invoice use cases share: the view the routes answer, who may see an invoice, and the events of its steps.
 */
import { DateTime, Effect } from "effect"
import { makeDomainEvent } from "../event/EventEnvelope.ts"
import type { InvoiceEventPayload } from "../event/EventPayload.ts"
import type { InvoiceId } from "../Ids.ts"
import { type Action, isAllowed } from "../membership/Permission.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Team } from "../team/Team.ts"
import type { Caller } from "../user/Caller.ts"
import type { Invoice } from "./Invoice.ts"
import { InvoiceNotFound } from "./InvoiceErrors.ts"
import { holdIsLive } from "./InvoiceHolds.ts"
import { InvoiceRepository } from "./InvoiceRepository.ts"
import type { InvoiceView } from "./InvoiceRequests.ts"

/** Now, as invoices store it. */
export const nowIso = Effect.map(DateTime.now, DateTime.formatIso)

/** The invoice as the routes answer it, `heldBy` what pays it now (`liveViewOf` reads it). */
export const invoiceViewOf = (invoice: Invoice, heldBy: InvoiceView["held_by"] = null): InvoiceView => ({
  nanoid: invoice.nanoid,
  team_nanoid: invoice.team_nanoid,
  recipient_nanoid: invoice.recipient_nanoid,
  invoice_number: invoice.invoice_number,
  type: invoice.type,
  flat_type: invoice.flat_type,
  amount_cents: invoice.amount_cents,
  paid_cents: invoice.paid_cents,
  currency: invoice.currency,
  invoice_description: invoice.invoice_description,
  role_description: invoice.role_description,
  time_entries: invoice.time_entries,
  hourly_rate_usd_cents: invoice.hourly_rate_usd_cents,
  due_date: invoice.due_date,
  invoice_status: invoice.state,
  reason: invoice.reason ?? null,
  payments: invoice.payments,
  held_by: heldBy,
  created_at: invoice.created_at,
  updated_at: invoice.updated_at
})

/** The invoice as the routes answer it, with what pays it now: its hold, while that is live. */
export const liveViewOf = Effect.fn("Invoices.liveViewOf")(function* (invoice: Invoice) {
  const hold = invoice.hold
  if (hold === undefined || !(yield* holdIsLive(hold))) return invoiceViewOf(invoice)
  return invoiceViewOf(
    invoice,
    "schedule_nanoid" in hold
      ? { kind: "pay_schedule", nanoid: hold.schedule_nanoid }
      : { kind: "payment", nanoid: hold.payment_nanoid }
  )
})

/**
 * The invoice with this id when the caller may take `action` on it: the member who billed it (`self`), or a role of
 * its team allowed the action. Anything else is "not found", so nobody learns of another member's invoice.
 */
export const invoiceFor = Effect.fn("Invoices.invoiceFor")(function* (caller: Caller, id: InvoiceId, action: Action) {
  const invoice = yield* InvoiceRepository.use((invoices) => invoices.findById(id))
  const notFound = new InvoiceNotFound({ nanoid: id })
  const grant = yield* TeamAccess.use((access) =>
    access.authorize(caller, invoice.team_nanoid, action, invoice.recipient_nanoid)
  ).pipe(
    Effect.catchTags({
      TeamNotFound: () => Effect.fail(notFound),
      InsufficientPermissions: () => Effect.fail(notFound)
    })
  )
  return { invoice, team: grant.team, role: grant.membership.role }
})

/** Whether the caller reads the whole team's invoices (a manager) or only their own. */
export const readsEveryInvoice = (role: Parameters<typeof isAllowed>[0]) => isAllowed(role, "invoices.read", false)

/** The `invoice` payload of the invoice events. */
export const invoicePayloadOf = (invoice: Invoice): InvoiceEventPayload => ({
  nanoid: invoice.nanoid,
  team_nanoid: invoice.team_nanoid,
  recipient_nanoid: invoice.recipient_nanoid,
  invoice_number: invoice.invoice_number,
  type: invoice.type,
  amount_cents: invoice.amount_cents,
  currency: invoice.currency,
  invoice_description: invoice.invoice_description,
  status: invoice.state === "rejected" ? "rejected" : invoice.state === "canceled" ? "canceled" : "submitted",
  reason: invoice.reason ?? null,
  due_date: invoice.due_date,
  created_at: invoice.created_at,
  updated_at: invoice.updated_at
})

/** The event of a step on `invoice`, of its team and company. */
export const invoiceEventOf = (invoice: Invoice, team: Team, type: "invoice.created" | "invoice.canceled") =>
  makeDomainEvent({
    event_type: type,
    data: invoicePayloadOf(invoice),
    team_nanoid: invoice.team_nanoid,
    company_nanoid: team.company_nanoid
  })
