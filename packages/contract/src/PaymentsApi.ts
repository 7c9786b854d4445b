/**
 * Payments (SPEC §4.3, §4.5, §4.6, §4.7), on the domain's request and response schemas. The payment issue owns the
 * handlers.
 */

import type { ErrorCode } from "@svc/domain/errors"
import { PaymentId } from "@svc/domain/Ids"
import {
  CanceledIntent,
  CreatePaymentsRequest,
  CreatePaymentsResponse,
  ExecutePaymentsInFlight,
  ExecutePaymentsRequest,
  ExecutePaymentsResponse,
  InstantPaymentRequest,
  InstantPaymentResponse,
  PaymentsQuery,
  PaymentsQueryResponse
} from "@svc/domain/payment"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { Envelope } from "./Envelope.ts"
import { answers, signedRequestCodes } from "./OperationDocs.ts"

/** What issuing typed data (a batch, or an instant payment) may answer, but for the transport's codes. */
const issueCodes = [
  "TEAM_NOT_FOUND",
  "INSUFFICIENT_PERMISSIONS",
  "INVALID_RECIPIENT",
  "INVALID_STATE_TRANSITION",
  "ISSUED_REQUESTS_LIMIT",
  "INVOICE_NOT_PAYABLE",
  "NOT_IMPLEMENTED"
] as const satisfies ReadonlyArray<ErrorCode>

/** The payment routes; all need a bearer token. */
export class PaymentsApi extends HttpApiGroup.make("payments")
  .add(
    HttpApiEndpoint.get("query", "/v2/payments", {
      query: PaymentsQuery,
      success: PaymentsQueryResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "List a team's payments")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "NOT_IMPLEMENTED"]))
      .annotate(
        OpenApi.Description,
        "Payments of a team, newest first. Answers `{data}` without `success` (SPEC §1). `end_date` must not be before " +
          "`start_date` (400 `VALIDATION_ERROR`). `limit` or `cursor` ask for a " +
          "page and add `data.next_cursor` (null on the last page); without them at most the newest 1000 come back, " +
          "and the `X-Next-Cursor` header continues (docs/decisions/0039). `state=scheduled`: intents not yet due, and " +
          "payments being paid. `query_type=receivable` is open to every member: an employee or contractor sees what " +
          "the team paid or owes them (their invoices' payments among it), a manager what other teams paid the " +
          "team's members (decision 0106)."
      ),
    HttpApiEndpoint.post("create", "/v2/payments", {
      payload: CreatePaymentsRequest,
      success: CreatePaymentsResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Create typed data for a batch")
      .pipe(answers(issueCodes))
      .annotate(
        OpenApi.Description,
        "Typed data for a batch of payments, to sign and execute with PUT /v2/payments. An entry is a member and an " +
          "amount (`{to, amount_cents, currency_symbol, invoice_description}`), or a member's invoice " +
          "(`{invoice_nanoid, amount_cents?}`): its author is paid what is left of it, or `amount_cents` of it (at most " +
          "that); an invoice paid, canceled, rejected, being paid, or not the team's answers 409 " +
          "`INVOICE_NOT_PAYABLE` naming it (docs/invoices.md)."
      ),
    HttpApiEndpoint.put("execute", "/v2/payments", {
      payload: ExecutePaymentsRequest,
      success: [
        ExecutePaymentsResponse,
        ExecutePaymentsInFlight.pipe(
          HttpApiSchema.status(202),
          Schema.annotate({ description: "Sent, not final yet: the transaction in flight (docs/decisions/0061)" })
        )
      ],
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Execute signed payments")
      .pipe(answers(["TEAM_NOT_FOUND", "INVOICE_NOT_PAYABLE", ...signedRequestCodes]))
      .annotate(
        OpenApi.Description,
        "Executes signed payments: pays now or registers intents (`pay_now`). The invoices it pays are held for it " +
          "before anything is sent; one paid or held by another request meanwhile answers 409 `INVOICE_NOT_PAYABLE`, " +
          "nothing sent, and the request may be sent again once it can be paid."
      ),
    HttpApiEndpoint.post("instant", "/v2/payments/external_entity/instant", {
      payload: InstantPaymentRequest,
      success: InstantPaymentResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Create typed data for an instant payment by e-mail")
      .pipe(answers(issueCodes))
      .annotate(
        OpenApi.Description,
        "Typed data for an instant payment to a recipient outside the service, by e-mail (pay type 3, into the escrow " +
          "under the e-mail's claim id). Sign it and execute it with PUT /v2/payments, sending " +
          "`to: [{to: <e-mail>, amount_cents, currency_symbol, invoice_description}]` and `pay_now: true` (docs/payments.md)."
      )
  )
  .add(
    HttpApiEndpoint.delete("cancelIntent", "/v2/payments/intents/:payment_nanoid", {
      params: { payment_nanoid: PaymentId },
      success: Envelope(CanceledIntent),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Cancel a pending intent")
      .pipe(answers(["PAYMENT_NOT_FOUND", "TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "INVALID_STATE_TRANSITION"]))
      .annotate(
        OpenApi.Description,
        "Cancels an intent (a payment registered for later) that has not started executing: its signer may, and so " +
          "may the team's admins and finance admins. The payment becomes `canceled` with a `payment.canceled` event, " +
          "and the intent runner never executes it. One already executing, executed or canceled answers 409 " +
          "`INVALID_STATE_TRANSITION` (docs/payments.md)."
      )
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Payments",
      description: "Payment requests issued as EIP-712 typed data, executed once signed, listed and cancelled."
    })
  ) {}
