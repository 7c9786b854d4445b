/**
 * Payments (SPEC §4.3, §4.5, §4.6, §4.7). Bodies follow the spec's tables; the payment issue owns the handlers and
 * may move these schemas into the domain.
 */
import { Address, Signature } from "@svc/domain/Evm"
import { TeamId, UserId } from "@svc/domain/Ids"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { DataOnly, Envelope } from "./Envelope.ts"

const Text = (max: number) => Schema.String.pipe(Schema.check(Schema.isMaxLength(max)))
const Currency = Schema.Literal("USD")
const Network = Schema.Literal("arbitrum")
const IsoDate = Schema.String.pipe(
  Schema.check(Schema.isPattern(/^\d{4}-\d{2}-\d{2}$/, { message: "Expected a date as YYYY-MM-DD" }))
)

/** One payment line of a batch (SPEC §4.7). */
export const PaymentLine = Schema.Struct({
  to: UserId,
  amount_cents: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 1, maximum: 10_000_000_000 }))),
  currency_symbol: Currency,
  invoice_description: Text(500)
})

/** An EIP-712 typed data bundle (SPEC §2.7); `typed_data.data` depends on the request. */
export const TypedDataBundle = Schema.Struct({
  domain: Schema.Struct({
    name: Schema.String,
    version: Schema.String,
    chainId: Schema.Int,
    verifyingContract: Schema.String
  }),
  types: Schema.Record(Schema.String, Schema.Array(Schema.Struct({ name: Schema.String, type: Schema.String }))),
  typed_data: Schema.Struct({
    from: Schema.String,
    to: Schema.String,
    salt: Schema.String,
    expires: Schema.String,
    data: Schema.Unknown
  }),
  primary_type: Schema.String
})

/** A signed request's `typed_data` as the client sends it back. */
export const SignedTypedData = Schema.Struct({
  from: Text(66),
  to: Text(66),
  salt: Text(80),
  expires: Text(32),
  data: Schema.Struct({
    payments: Schema.Array(Schema.Record(Schema.String, Schema.String)).pipe(Schema.check(Schema.isMaxLength(100)))
  })
})

/** `GET /v2/payments` query (DESIGN §5). */
export const PaymentsQuery = {
  team_nanoid: TeamId,
  state: Schema.optional(Schema.Literals(["all", "intent", "scheduled", "complete"])),
  query_type: Schema.optional(Schema.Literals(["payable", "receivable"])),
  recipient: Schema.optional(UserId),
  start_date: Schema.optional(IsoDate),
  end_date: Schema.optional(IsoDate)
}

/** `POST /v2/payments` body (SPEC §4.7). */
export const CreatePaymentsBody = Schema.Struct({
  from: TeamId,
  to: Schema.Array(PaymentLine).pipe(Schema.check(Schema.isBetweenLength(1, 100))),
  pay_now: Schema.Boolean,
  network: Schema.optionalKey(Network)
})

/** `PUT /v2/payments` body (SPEC §4.6). */
export const ExecutePaymentsBody = Schema.Struct({
  from: TeamId,
  to: Schema.Array(PaymentLine).pipe(Schema.check(Schema.isBetweenLength(1, 100))),
  pay_now: Schema.Boolean,
  signer: Address,
  typed_data: SignedTypedData,
  signature: Signature,
  network: Schema.optionalKey(Network)
})

/** `POST /v2/payments/external_entity/instant` body (SPEC §4.5). */
export const InstantPaymentBody = Schema.Struct({
  from: TeamId,
  amount_cents: Schema.Int.pipe(Schema.check(Schema.isBetween({ minimum: 100, maximum: 10_000_000_000 }))),
  payment_data: Schema.Struct({
    role_description: Schema.optionalKey(Text(500)),
    invoice_description: Schema.optionalKey(Text(500)),
    services_description: Schema.optionalKey(Text(2000)),
    payment_details: Schema.optionalKey(Text(2000)),
    sow_link: Schema.optionalKey(Text(2048)),
    svc_sow: Schema.optionalKey(Schema.Boolean),
    reason_id: Schema.optionalKey(Schema.Int)
  }),
  external_recipient_email: Text(254).pipe(Schema.check(Schema.isPattern(/^[^@\s]+@[^@\s]+\.[^@\s]+$/))),
  currency_symbol: Schema.optionalKey(Currency),
  network: Schema.optionalKey(Network)
})

/** The payment routes; all need a bearer token. */
export class PaymentsApi extends HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.get("query", "/v2/payments", {
      query: PaymentsQuery,
      success: DataOnly(Schema.Struct({ items: Schema.Array(Schema.Unknown) })),
      error: EndpointErrors
    }).annotate(OpenApi.Description, "Payments of a team, newest first. Answers `{data}` without `success` (SPEC §1)."),
    HttpApiEndpoint.post("create", "/v2/payments", {
      payload: CreatePaymentsBody,
      success: Envelope(TypedDataBundle),
      error: EndpointErrors
    }),
    HttpApiEndpoint.put("execute", "/v2/payments", {
      payload: ExecutePaymentsBody,
      success: Envelope(Schema.Struct({ transaction: Schema.String, payments: Schema.Array(Schema.Unknown) })),
      error: EndpointErrors
    }),
    HttpApiEndpoint.post("instant", "/v2/payments/external_entity/instant", {
      payload: InstantPaymentBody,
      success: Envelope(TypedDataBundle),
      error: EndpointErrors
    })
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Payments" })) {}
