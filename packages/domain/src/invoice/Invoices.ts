/**
 * The invoice use cases (issue 38) as one service: a member bills their team, reads and cancels their invoices; the
 * team's managers list and read every invoice, and its finance roles reject one; anyone who may read an invoice gets
 * it as a PDF. Each in a file of its own; each change is one unit of work with its event (decision 0080). Paying an
 * invoice is a payment's business (`PayInvoices.ts`).
 */
import { Context, type Effect, Layer } from "effect"
import type { CompanyRepository } from "../company/CompanyRepository.ts"
import type { EventOutbox } from "../event/EventOutbox.ts"
import type { IdGenerator, InvoiceId } from "../Ids.ts"
import type { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { InvalidPaymentsCursor } from "../payment/PaymentErrors.ts"
import type { PaymentLedger } from "../payment/PaymentLedger.ts"
import type { Randomness } from "../Randomness.ts"
import type { PayScheduleRepository } from "../schedule/PayScheduleRepository.ts"
import type { TeamNotFound } from "../team/TeamNotFound.ts"
import type { UnitOfWork } from "../UnitOfWork.ts"
import { useCaseLayer } from "../UseCases.ts"
import type { Caller } from "../user/Caller.ts"
import type { UserRepository } from "../user/UserRepository.ts"
import { cancelInvoice } from "./CancelInvoice.ts"
import { createInvoice } from "./CreateInvoice.ts"
import { getInvoice } from "./GetInvoice.ts"
import type { InvoiceRenderer } from "./InvoiceDocument.ts"
import type { InvoiceAmountMismatch, InvoiceClosed, InvoiceNotFound, InvoiceNumberTaken } from "./InvoiceErrors.ts"
import type { InvoiceRepository } from "./InvoiceRepository.ts"
import type { CreateInvoiceRequest, InvoicesQuery, InvoiceView, RejectInvoiceRequest } from "./InvoiceRequests.ts"
import { listInvoices } from "./ListInvoices.ts"
import { rejectInvoice } from "./RejectInvoice.ts"
import { renderInvoice } from "./RenderInvoice.ts"

/** What the invoice use cases run on. */
type InvoicePorts =
  | TeamAccess
  | InvoiceRepository
  | PaymentLedger
  | PayScheduleRepository
  | CompanyRepository
  | UserRepository
  | InvoiceRenderer
  | IdGenerator
  | Randomness
  | EventOutbox
  | UnitOfWork

/** A page of invoices. */
export interface InvoicesPage {
  readonly items: ReadonlyArray<InvoiceView>
  /** Where the next page starts; `null` when this one ends the list. */
  readonly next_cursor: string | null
}

type AccessError = TeamNotFound | InsufficientPermissions

/** Invoices, for a caller. */
export class Invoices extends Context.Service<
  Invoices,
  {
    /** An employee or contractor bills the team: the invoice, `submitted`, with `invoice.created`. */
    readonly create: (
      caller: Caller,
      body: CreateInvoiceRequest
    ) => Effect.Effect<InvoiceView, AccessError | InvoiceAmountMismatch | InvoiceNumberTaken>
    /** The team's invoices (a member: their own), newest first, a page at a time. */
    readonly list: (
      caller: Caller,
      query: InvoicesQuery
    ) => Effect.Effect<InvoicesPage, AccessError | InvalidPaymentsCursor>
    /** One invoice, for its author and the team's managers. */
    readonly get: (caller: Caller, invoice: InvoiceId) => Effect.Effect<InvoiceView, InvoiceNotFound>
    /** Its author withdraws an invoice nothing of which is paid or being paid. */
    readonly cancel: (
      caller: Caller,
      invoice: InvoiceId
    ) => Effect.Effect<InvoiceView, InvoiceNotFound | InsufficientPermissions | InvoiceClosed>
    /** A team admin or finance admin refuses an unpaid invoice, with a reason. */
    readonly reject: (
      caller: Caller,
      invoice: InvoiceId,
      body: RejectInvoiceRequest
    ) => Effect.Effect<InvoiceView, InvoiceNotFound | InsufficientPermissions | InvoiceClosed>
    /** The invoice as a PDF. */
    readonly pdf: (caller: Caller, invoice: InvoiceId) => Effect.Effect<Uint8Array, InvoiceNotFound>
  }
>()("@svc/domain/invoice/Invoices") {
  /** On the repositories, the payments ledger (for holds), the renderer, ids and randomness. */
  static readonly layer = useCaseLayer<InvoicePorts>()(Invoices, (run) => ({
    create: (caller, body) => run(createInvoice(caller, body)),
    list: (caller, query) => run(listInvoices(caller, query)),
    get: (caller, id) => run(getInvoice(caller, id)),
    cancel: (caller, id) => run(cancelInvoice(caller, id)),
    reject: (caller, id, body) => run(rejectInvoice(caller, id, body)),
    pdf: (caller, id) => run(renderInvoice(caller, id))
  })).pipe(Layer.provide(TeamAccess.layer))
}
