/**
 * Request and response bodies of the payment routes (SPEC §4.3, 4.5, 4.6, 4.7) with the limits of SPEC §8.
 */
import { Schema, SchemaTransformation } from "effect"
import { Email, Mailbox } from "../Email.ts"
import { Signature, WalletAddress } from "../Evm.ts"
import {
  maxPaymentsPerRequest,
  PaymentEntry,
  PaymentsTypedDataBundle,
  PaymentsTypedDataMessage,
  PaymentTypedDataBundle,
  PaymentTypedDataMessage
} from "../eip712/TypedData.ts"
import { withDefault } from "../FieldDefault.ts"
import { InvoiceId, TeamId, UserId } from "../Ids.ts"
import { PlainText } from "../Text.ts"
import { CalendarDate } from "../Timestamp.ts"
import { CurrencySymbol, Network } from "./Payment.ts"
import { PaymentItem } from "./PaymentItem.ts"

/** Instant payment amount: 100 to 10,000,000,000 cents inclusive (SPEC §8). */
export const InstantAmountCents = Schema.Int.pipe(
  Schema.check(Schema.isBetween({ minimum: 100, maximum: 10_000_000_000 }))
)

/** A batch entry's amount: a positive number of cents, at most 10,000,000,000 (the instant payment's ceiling). */
export const AmountCents = Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 10_000_000_000 })))

/**
 * Most entries in one batch (SPEC §8 leaves it open; docs/decisions/0016). About 37k gas a payment: batches past
 * roughly 700 entries do not fit a 30M-gas block and are refused at execution, before their salt is spent.
 */
export const maxBatchSize = maxPaymentsPerRequest

/**
 * Longest free text of a payment (descriptions, details), in characters (docs/decisions/0038). With 1,000 entries
 * a batch could carry a megabyte of it: the 1 MiB body limit is the bound on the whole request.
 */
export const maxDescriptionLength = 1000

/** Longest link (a statement of work), in characters, as browsers and proxies commonly accept. */
export const maxLinkLength = 2048

const Description = (what: string) => PlainText({ max: maxDescriptionLength, what, multiline: true })

/** `currency_symbol`: `USD`, the default. */
export const CurrencyField = withDefault<typeof CurrencySymbol>("USD")(CurrencySymbol)
/** `network`: `arbitrum`, the default. */
export const NetworkField = withDefault<typeof Network>("arbitrum")(Network)

/** One recipient of a batch: a member by user nanoid (an e-mail for the instant form), cents, a description. */
export const PaymentRecipientRequest = Schema.Struct({
  to: Schema.Union([UserId, Email]),
  amount_cents: AmountCents,
  currency_symbol: CurrencySymbol,
  invoice_description: Description("an invoice description")
})
export type PaymentRecipientRequest = typeof PaymentRecipientRequest.Type

/**
 * An entry paying a member's invoice (issue 38): the invoice names the recipient and the amount, what is left to pay
 * of it; `amount_cents`, at most that, pays part of it.
 */
export const InvoicePaymentRequest = Schema.Struct({
  invoice_nanoid: InvoiceId,
  amount_cents: Schema.optionalKey(AmountCents),
  currency_symbol: Schema.optionalKey(CurrencySymbol)
})
export type InvoicePaymentRequest = typeof InvoicePaymentRequest.Type

/** One entry of a batch: a member and an amount, or a member's invoice. */
export const PaymentEntryRequest = Schema.Union([PaymentRecipientRequest, InvoicePaymentRequest])
export type PaymentEntryRequest = typeof PaymentEntryRequest.Type

/** Whether the entry pays a member's invoice. */
export const isInvoiceEntry = (entry: PaymentEntryRequest): entry is InvoicePaymentRequest => "invoice_nanoid" in entry

const recipients = Schema.Array(PaymentEntryRequest).pipe(
  Schema.check(Schema.isMinLength(1), Schema.isMaxLength(maxBatchSize))
)

/** POST /v2/payments body (SPEC §4.7). */
export const CreatePaymentsRequest = Schema.Struct({
  from: TeamId,
  to: recipients,
  pay_now: Schema.Boolean,
  /**
   * Ours (docs/decisions/0016): when an intent (`pay_now` false) becomes due, unix seconds; default now. At most
   * 2^40 - 1, the largest time an account stores (it refuses more, and only after the wallet has signed).
   */
  pay_at_time: Schema.optionalKey(
    Schema.Int.pipe(Schema.check(Schema.isGreaterThanOrEqualTo(0), Schema.isLessThanOrEqualTo(2 ** 40 - 1)))
  ),
  network: NetworkField
})
export type CreatePaymentsRequest = typeof CreatePaymentsRequest.Type

/** POST /v2/payments response: the batch bundle. */
export const CreatePaymentsResponse = Schema.Struct({ success: Schema.Literal(true), data: PaymentsTypedDataBundle })
export type CreatePaymentsResponse = typeof CreatePaymentsResponse.Type

/** PUT /v2/payments body (SPEC §4.6): the creation body plus signer, the issued `typed_data` and the signature. */
export const ExecutePaymentsRequest = Schema.Struct({
  from: TeamId,
  to: recipients,
  pay_now: Schema.Boolean,
  signer: WalletAddress,
  typed_data: Schema.Union([PaymentsTypedDataMessage, PaymentTypedDataMessage]),
  signature: Signature,
  network: NetworkField
})
export type ExecutePaymentsRequest = typeof ExecutePaymentsRequest.Type

/** PUT /v2/payments response: the transaction and the executed entries. */
export const ExecutePaymentsResponse = Schema.Struct({
  success: Schema.Boolean,
  data: Schema.Struct({ transaction: Schema.String, payments: Schema.Array(PaymentEntry) })
})
export type ExecutePaymentsResponse = typeof ExecutePaymentsResponse.Type

/**
 * 202 from `PUT /v2/payments` (decision 0061): the request's transaction was sent and is not final within the wait;
 * `transaction` is the hash of the version in flight. The same PUT again answers 202 while it is, and 200 once final.
 */
export const ExecutePaymentsInFlight = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    transaction: Schema.String,
    payments: Schema.Array(PaymentEntry),
    status: Schema.Literal("in_flight")
  })
})
export type ExecutePaymentsInFlight = typeof ExecutePaymentsInFlight.Type

/** `payment_data` of an instant payment (SPEC §4.5); the two descriptions of services and details default to "". */
const ServicesDescription = Description("a services description")
const PaymentDetails = Description("payment details")

export const InstantPaymentData = Schema.Struct({
  role_description: Schema.optionalKey(Description("a role description")),
  invoice_description: Schema.optionalKey(Description("an invoice description")),
  services_description: withDefault<typeof ServicesDescription>("")(ServicesDescription),
  payment_details: withDefault<typeof PaymentDetails>("")(PaymentDetails),
  sow_link: Schema.optionalKey(PlainText({ max: maxLinkLength, what: "a link" })),
  svc_sow: Schema.optionalKey(Schema.Boolean),
  reason_id: Schema.optionalKey(Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 0, maximum: 2 ** 31 - 1 }))))
})
export type InstantPaymentData = typeof InstantPaymentData.Type

/** POST /v2/payments/external_entity/instant body (SPEC §4.5). */
export const InstantPaymentRequest = Schema.Struct({
  from: TeamId,
  amount_cents: InstantAmountCents,
  payment_data: InstantPaymentData,
  external_recipient_email: Mailbox,
  currency_symbol: CurrencyField,
  network: NetworkField
})
export type InstantPaymentRequest = typeof InstantPaymentRequest.Type

/** POST /v2/payments/external_entity/instant response: the single-payment bundle. */
export const InstantPaymentResponse = Schema.Struct({ success: Schema.Literal(true), data: PaymentTypedDataBundle })
export type InstantPaymentResponse = typeof InstantPaymentResponse.Type

/** The payments query's `state` filter (SPEC §3). */
export const PaymentStateFilter = Schema.Literals(["all", "intent", "scheduled", "complete"])
/** The payments query's direction filter (SPEC §3). */
export const PaymentDirection = Schema.Literals(["payable", "receivable"])

/** Most items of one answer of the payments query: a page's `limit` at most, and what an unpaged query answers. */
export const maxPaymentsPage = 1000

/**
 * The payments query's page size, 1 to 1000. Query parameters travel as strings: the bound is the string's pattern,
 * so OpenAPI shows it (a check on the decoded integer would not be).
 */
export const PaymentsPageSize = Schema.String.pipe(
  Schema.check(
    Schema.isPattern(/^(?:1000|[1-9][0-9]{0,2})$/u, { message: `Expected a page size from 1 to ${maxPaymentsPage}` })
  ),
  Schema.annotate({ description: `Page size, 1 to ${maxPaymentsPage}; asks for a page and \`data.next_cursor\`` }),
  Schema.decodeTo(
    Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: maxPaymentsPage }))),
    SchemaTransformation.numberFromString
  )
)

/** The payments query's cursor as it travels: URL-safe base64, at most 200 characters (`PaymentsCursor.ts`). */
export const PaymentsCursorParam = Schema.String.pipe(
  Schema.check(
    Schema.isMinLength(1),
    Schema.isMaxLength(200),
    Schema.isPattern(/^[A-Za-z0-9_-]+$/u, { message: "Expected a cursor from an earlier answer's next_cursor" })
  ),
  Schema.annotate({ description: "`next_cursor` of the previous page, unchanged, with the same filters" })
)

/**
 * GET /v2/payments query (SPEC §4.3 with the names of DESIGN §5); dates are inclusive, UTC. `limit` and `cursor` are
 * ours (docs/decisions/0039): either one asks for a page and a `next_cursor`.
 */
export const PaymentsQuery = Schema.Struct({
  team_nanoid: TeamId,
  state: withDefault<typeof PaymentStateFilter>("all")(PaymentStateFilter),
  query_type: withDefault<typeof PaymentDirection>("payable")(PaymentDirection),
  recipient: Schema.optionalKey(UserId),
  start_date: Schema.optionalKey(CalendarDate),
  end_date: Schema.optionalKey(CalendarDate),
  limit: Schema.optionalKey(PaymentsPageSize),
  cursor: Schema.optionalKey(PaymentsCursorParam)
}).pipe(
  Schema.check(
    Schema.makeFilter(
      (q) =>
        q.start_date === undefined ||
        q.end_date === undefined ||
        q.start_date <= q.end_date || { path: ["end_date"], issue: "end_date must not be before start_date" }
    )
  )
)
export type PaymentsQuery = typeof PaymentsQuery.Type

/**
 * GET /v2/payments response: `data.items` alone, no `success` (SPEC §1 rule 2). A query with `limit` or `cursor` also
 * gets `data.next_cursor` (`null` on the last page); one without gets exactly the spec's shape.
 */
export const PaymentsQueryResponse = Schema.Struct({
  data: Schema.Struct({
    items: Schema.Array(PaymentItem),
    next_cursor: Schema.optionalKey(Schema.NullOr(Schema.String))
  })
})
export type PaymentsQueryResponse = typeof PaymentsQueryResponse.Type
