/**
 * `svc.schedules` (issue 37): a pay schedule created in one call, as `payments.pay` pays: the API issues its typed
 * data, the client checks it pays exactly the payees and amounts asked, on the interval and count asked, signs it here
 * once for every instalment, and registers it; `prepare` and `submit` are its two halves, for a person to review what
 * their wallet will sign. An entry may name a member's invoice (`{ invoice_nanoid, amount_cents? }`, issue 38): the
 * client reads it first, so that it knows what each instalment must pay before anything is signed. The other
 * operations are the contract's (`list`, `get`, `cancel`).
 */
import type { ScheduleTypedDataBundle, TypedDataBundle } from "@svc/domain/eip712"
import { tokenAmountOf } from "@svc/domain/payment"

/** One payee of a schedule: a member, paid `amount_cents` each instalment. */
export interface SchedulePayee {
  readonly to: string
  readonly amount_cents: number
  readonly invoice_description?: string
}

/**
 * A member's invoice the schedule pays in instalments: its author is paid `amount_cents` each instalment, by default
 * what is left of it over the schedule's `count` (the API refuses a split that is not even, or that pays too much).
 */
export interface ScheduleInvoicePayee {
  readonly invoice_nanoid: string
  readonly amount_cents?: number
}

/** What `schedules.create` takes. */
export interface ScheduleRequest {
  readonly team: string
  readonly to: ReadonlyArray<SchedulePayee | ScheduleInvoicePayee>
  readonly interval: "weekly" | "biweekly" | "monthly"
  /** When the first instalment is due: now or later. */
  readonly firstPayAt: Date
  /** 1 to 120 instalments. */
  readonly count: number
}

/** What `schedules.create` answers: the registering transaction and the schedule (or its nanoid while in flight). */
export interface ScheduleResult {
  readonly transaction: string
  readonly schedule: string
  /** True when the transaction was sent and is not final yet (the API answered 202; the same call again waits on). */
  readonly inFlight: boolean
}

/** What the client reads of an invoice: who billed it, and what is left of it. */
export interface ScheduleInvoice {
  readonly nanoid: string
  readonly recipient_nanoid: string
  readonly invoice_number: string
  readonly amount_cents: number
  readonly paid_cents: number
}

/** The operations `create` runs, and the signer, as the client holds them. */
export interface ScheduleParts {
  readonly issue: (request: { readonly payload: unknown }) => Promise<unknown>
  readonly readInvoice: (invoice: string) => Promise<ScheduleInvoice>
  readonly execute: (request: { readonly payload: unknown }) => Promise<unknown>
  readonly address: () => Promise<`0x${string}`>
  readonly signTypedData: (bundle: TypedDataBundle) => Promise<string>
  /** The error the client throws when the typed data does not pay what was asked. */
  readonly refuse: (message: string) => Error
}

/** One payee of a prepared schedule: who is paid what each instalment, and the invoice it pays part of, if any. */
export interface ScheduledPayee {
  readonly to: string
  readonly amount_cents: number
  readonly invoice_description: string
  readonly invoice?: { readonly nanoid: string; readonly invoice_number: string; readonly left_cents: number }
}

const isInvoiceEntry = (entry: SchedulePayee | ScheduleInvoicePayee): entry is ScheduleInvoicePayee =>
  "invoice_nanoid" in entry

/**
 * What each entry must pay each instalment: a member's amount as asked; an invoice's as asked, or what is left of it
 * over `count` (a split that is not even is left for the API to refuse, naming the invoice).
 */
const scheduledPayees = (parts: ScheduleParts, request: ScheduleRequest) =>
  Promise.all(
    request.to.map(async (entry): Promise<ScheduledPayee> => {
      if (!isInvoiceEntry(entry)) {
        return { to: entry.to, amount_cents: entry.amount_cents, invoice_description: entry.invoice_description ?? "" }
      }
      const invoice = await parts.readInvoice(entry.invoice_nanoid)
      const left = invoice.amount_cents - invoice.paid_cents
      return {
        to: invoice.recipient_nanoid,
        amount_cents: entry.amount_cents ?? left / request.count,
        invoice_description: `Invoice ${invoice.invoice_number}`,
        invoice: { nanoid: invoice.nanoid, invoice_number: invoice.invoice_number, left_cents: left }
      }
    })
  )

/** Whether the issued schedule pays exactly what was asked, on the interval and count asked. */
const schedulesWhatWasAsked = (
  bundle: ScheduleTypedDataBundle,
  request: ScheduleRequest,
  payees: ReadonlyArray<ScheduledPayee>
) => {
  const data = bundle.typed_data.data
  return (
    data.interval === request.interval &&
    data.count === String(request.count) &&
    data.firstPayAt === String(Math.floor(request.firstPayAt.getTime() / 1000)) &&
    data.payees.length === payees.length &&
    data.payees.every((payee, index) => {
      const cents = payees[index]?.amount_cents ?? 0
      return Number.isInteger(cents) && payee.amount === tokenAmountOf(cents)
    })
  )
}

/** A schedule issued and checked, not signed yet: what a person reviews before their wallet signs it. */
export interface PreparedSchedule {
  readonly team: string
  readonly schedule: string
  readonly bundle: ScheduleTypedDataBundle
  /** Who each instalment pays, in the typed data's order, with the invoice an entry pays part of. */
  readonly payees: ReadonlyArray<ScheduledPayee>
  /** What each instalment pays, in cents, and how many instalments there are. */
  readonly instalmentCents: number
  readonly count: number
}

/** `schedules.prepare`: issues the schedule and checks it pays what was asked; nothing is signed. */
export const prepareScheduleWith =
  (parts: ScheduleParts) =>
  async (request: ScheduleRequest): Promise<PreparedSchedule> => {
    const payees = await scheduledPayees(parts, request)
    const issued = (await parts.issue({
      payload: {
        team_nanoid: request.team,
        to: request.to.map((payee) =>
          isInvoiceEntry(payee)
            ? {
                invoice_nanoid: payee.invoice_nanoid,
                ...(payee.amount_cents === undefined ? {} : { amount_cents: payee.amount_cents })
              }
            : {
                to: payee.to,
                amount_cents: payee.amount_cents,
                ...(payee.invoice_description === undefined ? {} : { invoice_description: payee.invoice_description })
              }
        ),
        interval: request.interval,
        first_pay_at: request.firstPayAt.toISOString(),
        count: request.count
      }
    })) as { data: ScheduleTypedDataBundle & { pay_schedule_nanoid: string } }
    const { pay_schedule_nanoid, ...bundle } = issued.data
    if (!schedulesWhatWasAsked(bundle, request, payees)) {
      throw parts.refuse("the typed data the API issued does not schedule what was asked: nothing was signed")
    }
    return {
      team: request.team,
      schedule: pay_schedule_nanoid,
      bundle,
      payees,
      instalmentCents: payees.reduce((sum, payee) => sum + payee.amount_cents, 0),
      count: request.count
    }
  }

/** `schedules.submit`: signs the prepared schedule locally once and registers it. */
export const submitScheduleWith =
  (parts: ScheduleParts) =>
  async (prepared: PreparedSchedule): Promise<ScheduleResult> => {
    const signature = await parts.signTypedData(prepared.bundle)
    const executed = (await parts.execute({
      payload: {
        team_nanoid: prepared.team,
        signer: await parts.address(),
        typed_data: prepared.bundle.typed_data,
        signature
      }
    })) as { data: { transaction: string; status?: string } }
    return {
      transaction: executed.data.transaction,
      schedule: prepared.schedule,
      inFlight: executed.data.status === "in_flight"
    }
  }
