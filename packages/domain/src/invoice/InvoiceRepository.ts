/**
 * The invoices port: stored invoices and their changes. The events that report a change, and the payment whose record
 * pays an invoice, are written by the use case through their own ports, in the same `UnitOfWork` (decision 0080).
 */
import { Context, type Effect } from "effect"
import type { InvoiceId, TeamId, UserId } from "../Ids.ts"
import type { StaleState } from "../StaleState.ts"
import type { Invoice, InvoiceHold } from "./Invoice.ts"
import type { InvoiceNotFound, InvoiceNumberTaken } from "./InvoiceErrors.ts"
import type { InvoiceState } from "./InvoiceMachine.ts"

/** What a change writes besides the state; `hold: null` lets the hold go. */
export type InvoicePatch = Partial<Pick<Invoice, "paid_cents" | "payments" | "reason" | "updated_at">> & {
  readonly hold?: InvoiceHold | null
}

/** A change of an invoice: the revision it was decided from, and what it writes. */
export interface InvoiceChange {
  readonly revision: number
  readonly patch: InvoicePatch
}

/** Which invoices to list: a team's, newest first (`created_at`, then nanoid, both descending). */
export interface InvoiceListQuery {
  readonly team: TeamId
  /** Only those this member billed. */
  readonly recipient?: UserId | undefined
  /** Only in these states (every state when empty). */
  readonly states: ReadonlyArray<InvoiceState>
  /** Only invoices after this place in the order: the next page's start. */
  readonly after?: { readonly created_at: string; readonly nanoid: string } | undefined
  readonly limit: number
}

/**
 * Stored invoices. Implementations must: refuse a second invoice of one member and team with the same number
 * (`InvoiceNumberTaken`, atomically across replicas: a unique index); make `transition` one atomic step that applies
 * only while the invoice is in state `from` at `change.revision` (else `StaleState`), writing `to`, the patch and the
 * next revision (`from` may equal `to`: a payment of part of it, or a hold taken); list newest first; join the
 * caller's `UnitOfWork`, so what the use case writes with them (events, a payment's record) commits with them or not
 * at all. Storage failures are defects.
 */
export class InvoiceRepository extends Context.Service<
  InvoiceRepository,
  {
    readonly create: (invoice: Invoice) => Effect.Effect<void, InvoiceNumberTaken>
    readonly findById: (id: InvoiceId) => Effect.Effect<Invoice, InvoiceNotFound>
    /** The invoices of these ids that exist, in no particular order. */
    readonly findByIds: (ids: ReadonlyArray<InvoiceId>) => Effect.Effect<ReadonlyArray<Invoice>>
    readonly list: (query: InvoiceListQuery) => Effect.Effect<ReadonlyArray<Invoice>>
    readonly transition: (
      id: InvoiceId,
      from: InvoiceState,
      to: InvoiceState,
      change: InvoiceChange
    ) => Effect.Effect<Invoice, InvoiceNotFound | StaleState>
  }
>()("@svc/domain/invoice/InvoiceRepository") {}

/** The invoice after `change`, as every store writes it. */
export const changedInvoice = (stored: Invoice, to: InvoiceState, change: InvoiceChange): Invoice => {
  const { hold, ...rest } = change.patch
  const { hold: held, ...kept } = stored
  const nextHold = hold === undefined ? held : hold === null ? undefined : hold
  return {
    ...kept,
    ...rest,
    ...(nextHold === undefined ? {} : { hold: nextHold }),
    state: to,
    revision: stored.revision + 1
  }
}
