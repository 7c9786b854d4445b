/**
 * `svc.schedules` (issue 37): a pay schedule created in one call, as `payments.pay` pays: the API issues its typed
 * data, the client checks it pays exactly the payees and amounts asked, on the interval and count asked, signs it here
 * once for every instalment, and registers it; `prepare` and `submit` are its two halves, for a person to review what
 * their wallet will sign. The other operations are the contract's (`list`, `get`, `cancel`).
 */
import type { ScheduleTypedDataBundle, TypedDataBundle } from "@svc/domain/eip712"
import { tokenAmountOf } from "@svc/domain/payment"

/** One payee of a schedule: a member, paid `amount_cents` each instalment. */
export interface SchedulePayee {
  readonly to: string
  readonly amount_cents: number
  readonly invoice_description?: string
}

/** What `schedules.create` takes. */
export interface ScheduleRequest {
  readonly team: string
  readonly to: ReadonlyArray<SchedulePayee>
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

/** The two operations `create` runs, and the signer, as the client holds them. */
export interface ScheduleParts {
  readonly issue: (request: { readonly payload: unknown }) => Promise<unknown>
  readonly execute: (request: { readonly payload: unknown }) => Promise<unknown>
  readonly address: () => Promise<`0x${string}`>
  readonly signTypedData: (bundle: TypedDataBundle) => Promise<string>
  /** The error the client throws when the typed data does not pay what was asked. */
  readonly refuse: (message: string) => Error
}

/** Whether the issued schedule pays exactly what was asked, on the interval and count asked. */
const schedulesWhatWasAsked = (bundle: ScheduleTypedDataBundle, request: ScheduleRequest) => {
  const data = bundle.typed_data.data
  return (
    data.interval === request.interval &&
    data.count === String(request.count) &&
    data.firstPayAt === String(Math.floor(request.firstPayAt.getTime() / 1000)) &&
    data.payees.length === request.to.length &&
    data.payees.every((payee, index) => payee.amount === tokenAmountOf(request.to[index]?.amount_cents ?? 0))
  )
}

/** A schedule issued and checked, not signed yet: what a person reviews before their wallet signs it. */
export interface PreparedSchedule {
  readonly team: string
  readonly schedule: string
  readonly bundle: ScheduleTypedDataBundle
  /** What each instalment pays, in cents, and how many instalments there are. */
  readonly instalmentCents: number
  readonly count: number
}

/** `schedules.prepare`: issues the schedule and checks it pays what was asked; nothing is signed. */
export const prepareScheduleWith =
  (parts: ScheduleParts) =>
  async (request: ScheduleRequest): Promise<PreparedSchedule> => {
    const issued = (await parts.issue({
      payload: {
        team_nanoid: request.team,
        to: request.to.map((payee) => ({
          to: payee.to,
          amount_cents: payee.amount_cents,
          ...(payee.invoice_description === undefined ? {} : { invoice_description: payee.invoice_description })
        })),
        interval: request.interval,
        first_pay_at: request.firstPayAt.toISOString(),
        count: request.count
      }
    })) as { data: ScheduleTypedDataBundle & { pay_schedule_nanoid: string } }
    const { pay_schedule_nanoid, ...bundle } = issued.data
    if (!schedulesWhatWasAsked(bundle, request)) {
      throw parts.refuse("the typed data the API issued does not schedule what was asked: nothing was signed")
    }
    return {
      team: request.team,
      schedule: pay_schedule_nanoid,
      bundle,
      instalmentCents: request.to.reduce((sum, payee) => sum + payee.amount_cents, 0),
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
