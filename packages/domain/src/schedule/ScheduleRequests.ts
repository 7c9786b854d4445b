/**
 * Request and response bodies of the pay schedule routes (issue 37): create (typed data to sign), execute the signed
 * request, list, read and cancel.
 */
import { Schema } from "effect"
import { Signature, WalletAddress } from "../Evm.ts"
import {
  maxInstalments,
  maxSchedulePayees,
  ScheduleInterval,
  ScheduleTypedDataBundle,
  ScheduleTypedDataMessage
} from "../eip712/TypedData.ts"
import { withDefault } from "../FieldDefault.ts"
import { InvoiceId, PayScheduleId, TeamId, UserId } from "../Ids.ts"
import { AmountCents, maxDescriptionLength } from "../payment/PaymentRequests.ts"
import { PlainText } from "../Text.ts"
import { IsoTimestamp } from "../Timestamp.ts"

const InvoiceDescription = PlainText({ max: maxDescriptionLength, what: "an invoice description", multiline: true })

/** One payee of a schedule: a member by user nanoid, paid `amount_cents` each instalment. */
export const ScheduleMemberRequest = Schema.Struct({
  to: UserId,
  amount_cents: AmountCents,
  invoice_description: withDefault<typeof InvoiceDescription>("")(InvoiceDescription)
})
export type ScheduleMemberRequest = typeof ScheduleMemberRequest.Type

/**
 * An invoice the schedule pays in instalments (decision 0117): its author is paid `amount_cents` each instalment, by
 * default what is left of it over `count`, and all of them together pay at most what is left.
 */
export const ScheduleInvoiceRequest = Schema.Struct({
  invoice_nanoid: InvoiceId,
  amount_cents: Schema.optionalKey(AmountCents)
})
export type ScheduleInvoiceRequest = typeof ScheduleInvoiceRequest.Type

/** One payee of a schedule: a member and an amount, or a member's invoice. */
export const SchedulePayeeRequest = Schema.Union([ScheduleMemberRequest, ScheduleInvoiceRequest])
export type SchedulePayeeRequest = typeof SchedulePayeeRequest.Type

/** Whether the schedule's entry pays a member's invoice. */
export const isScheduleInvoiceEntry = (entry: SchedulePayeeRequest): entry is ScheduleInvoiceRequest =>
  "invoice_nanoid" in entry

/** How many instalments a schedule has: 1 to 120. */
export const InstalmentCount = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: maxInstalments })))

/** POST /v2/pay_schedules body. */
export const CreatePayScheduleRequest = Schema.Struct({
  team_nanoid: TeamId,
  to: Schema.Array(SchedulePayeeRequest).pipe(
    Schema.check(Schema.isMinLength(1), Schema.isMaxLength(maxSchedulePayees))
  ),
  interval: ScheduleInterval,
  /** When the first instalment is due: now or later (ISO 8601, UTC). */
  first_pay_at: IsoTimestamp,
  count: InstalmentCount
})
export type CreatePayScheduleRequest = typeof CreatePayScheduleRequest.Type

/** POST /v2/pay_schedules response: the bundle to sign, and the schedule's nanoid once registered. */
export const CreatePayScheduleResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ ...ScheduleTypedDataBundle.fields, pay_schedule_nanoid: PayScheduleId })
})
export type CreatePayScheduleResponse = typeof CreatePayScheduleResponse.Type

/** PUT /v2/pay_schedules body: the signer, the issued `typed_data` unchanged, and the signature. */
export const ExecutePayScheduleRequest = Schema.Struct({
  team_nanoid: TeamId,
  signer: WalletAddress,
  typed_data: ScheduleTypedDataMessage,
  signature: Signature
})
export type ExecutePayScheduleRequest = typeof ExecutePayScheduleRequest.Type

/** One payee as a schedule shows it. */
export const SchedulePayeeItem = Schema.Struct({
  user_nanoid: UserId,
  amount_cents: Schema.Int,
  invoice_description: Schema.String,
  /** The invoice each instalment pays part of, or `null` for a plain payee. */
  invoice_nanoid: Schema.NullOr(InvoiceId)
})

/** A pay schedule as the API shows it. */
export const PayScheduleItem = Schema.Struct({
  nanoid: PayScheduleId,
  team_nanoid: TeamId,
  state: Schema.Literals(["active", "completed", "canceled"]),
  interval: ScheduleInterval,
  first_pay_at: IsoTimestamp,
  count: Schema.Int,
  paid_count: Schema.Int,
  missed_count: Schema.Int,
  remaining_count: Schema.Int,
  next_pay_at: Schema.NullOr(IsoTimestamp),
  valid_minutes: Schema.Int,
  /** What one instalment pays, all payees together. */
  amount_cents: Schema.Int,
  currency_symbol: Schema.Literal("USD"),
  recipients: Schema.Array(SchedulePayeeItem),
  signer: Schema.Struct({ user_nanoid: UserId, wallet: Schema.String }),
  onchain_id: Schema.String,
  registration_transaction: Schema.String,
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp
})
export type PayScheduleItem = typeof PayScheduleItem.Type

/** PUT /v2/pay_schedules response: the schedule as registered. */
export const ExecutePayScheduleResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ transaction: Schema.String, pay_schedule: PayScheduleItem })
})
export type ExecutePayScheduleResponse = typeof ExecutePayScheduleResponse.Type

/** 202 from PUT /v2/pay_schedules: sent, not final yet (decision 0061); the same PUT again tells the rest. */
export const ExecutePayScheduleInFlight = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    transaction: Schema.String,
    pay_schedule_nanoid: PayScheduleId,
    status: Schema.Literal("in_flight")
  })
})
export type ExecutePayScheduleInFlight = typeof ExecutePayScheduleInFlight.Type

/** GET /v2/pay_schedules query. */
export const PaySchedulesQuery = Schema.Struct({ team_nanoid: TeamId })
export type PaySchedulesQuery = typeof PaySchedulesQuery.Type

/** GET /v2/pay_schedules response: the team's schedules, newest first. */
export const PaySchedulesResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ items: Schema.Array(PayScheduleItem) })
})
export type PaySchedulesResponse = typeof PaySchedulesResponse.Type

/** One obligation of a cash requirement. */
export const CashObligationItem = Schema.Struct({
  kind: Schema.Literals(["intent", "instalment"]),
  nanoid: Schema.String,
  instalment: Schema.NullOr(Schema.Int),
  due_at: IsoTimestamp,
  amount_cents: Schema.Int
})

/** A team's cash requirement: its obligations within its horizon, by due time, against its balance. */
export const CashRequirementView = Schema.Struct({
  team_nanoid: TeamId,
  currency: Schema.Literal("USD"),
  balance_cents: Schema.Int,
  obligations_cents: Schema.Int,
  shortfall_cents: Schema.Int,
  first_unmet_at: Schema.NullOr(IsoTimestamp),
  horizon_days: Schema.Int,
  obligations: Schema.Array(CashObligationItem)
})

/** GET /v2/cash_requirements query. */
export const CashRequirementsQuery = Schema.Struct({ team_nanoid: TeamId })
