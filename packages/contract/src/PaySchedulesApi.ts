/**
 * Pay schedules and cash requirements (issue 37, decisions 0110 and 0111): a standing order signed once and paid each
 * period on chain, and the forecast that warns before money runs short. docs/payroll.md tells the flow.
 */
import type { ErrorCode } from "@svc/domain/errors"
import { PayScheduleId } from "@svc/domain/Ids"
import {
  CashRequirementsQuery,
  CashRequirementView,
  CreatePayScheduleRequest,
  CreatePayScheduleResponse,
  ExecutePayScheduleInFlight,
  ExecutePayScheduleRequest,
  ExecutePayScheduleResponse,
  PayScheduleItem,
  PaySchedulesQuery,
  PaySchedulesResponse
} from "@svc/domain/schedule"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { Envelope } from "./Envelope.ts"
import { answers, signedRequestCodes } from "./OperationDocs.ts"

const readCodes = ["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"] as const satisfies ReadonlyArray<ErrorCode>
const params = { pay_schedule_nanoid: PayScheduleId }

/** The pay schedule routes; all need a bearer token. */
export class PaySchedulesApi extends HttpApiGroup.make("paySchedules")
  .add(
    HttpApiEndpoint.post("create", "/v2/pay_schedules", {
      payload: CreatePayScheduleRequest,
      success: CreatePayScheduleResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Create typed data for a pay schedule")
      .pipe(
        answers([
          ...readCodes,
          "INVALID_RECIPIENT",
          "MEMBER_BLOCKED",
          "INVOICE_NOT_PAYABLE",
          "INVALID_STATE_TRANSITION",
          "ISSUED_REQUESTS_LIMIT",
          "NOT_IMPLEMENTED"
        ])
      )
      .annotate(
        OpenApi.Description,
        "Typed data (`CreatePayScheduleForwardRequest`) for a schedule of `count` instalments (1 to 120) to members, " +
          "the first due at `first_pay_at` (now or later, else 400 `VALIDATION_ERROR`), then one each `interval` " +
          "(`monthly` keeps the day of the month, clamped to the month's last day). A `team_admin` or " +
          "`team_finance_admin` signs it once and executes it with PUT /v2/pay_schedules; `data.pay_schedule_nanoid` " +
          "names it from then on. An entry may name a member's invoice instead (`{invoice_nanoid, amount_cents?}`): " +
          "each instalment pays its author `amount_cents` (by default what is left of it over `count`), all of them " +
          "together at most what is left, else 409 `INVOICE_NOT_PAYABLE` naming it; the invoice is held for the " +
          "schedule while it is active, and each paid instalment moves it to `partially_paid`, then `paid` " +
          "(docs/invoices.md)."
      ),
    HttpApiEndpoint.put("execute", "/v2/pay_schedules", {
      payload: ExecutePayScheduleRequest,
      success: [
        ExecutePayScheduleResponse,
        ExecutePayScheduleInFlight.pipe(
          HttpApiSchema.status(202),
          Schema.annotate({ description: "Sent, not final yet: the transaction in flight (docs/decisions/0061)" })
        )
      ],
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Register a signed pay schedule")
      .pipe(answers(["TEAM_NOT_FOUND", "INVOICE_NOT_PAYABLE", ...signedRequestCodes]))
      .annotate(
        OpenApi.Description,
        "Registers the signed schedule on chain once, as PUT /v2/payments executes payments: a replay answers the " +
          "first result, 202 while the transaction is in flight, and `Idempotency-Key` is honoured."
      ),
    HttpApiEndpoint.get("list", "/v2/pay_schedules", {
      query: PaySchedulesQuery,
      success: PaySchedulesResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "List a team's pay schedules")
      .pipe(answers(readCodes))
      .annotate(
        OpenApi.Description,
        "The team's schedules, newest first: state (`active`, `completed`, `canceled`), payees and amounts, " +
          "`next_pay_at`, `paid_count`, `remaining_count` and the signer. Managers of the team may read."
      ),
    HttpApiEndpoint.get("get", "/v2/pay_schedules/:pay_schedule_nanoid", {
      params,
      success: Envelope(PayScheduleItem),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Read a pay schedule")
      .pipe(answers(["PAY_SCHEDULE_NOT_FOUND"])),
    HttpApiEndpoint.delete("cancel", "/v2/pay_schedules/:pay_schedule_nanoid", {
      params,
      success: Envelope(PayScheduleItem),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Cancel a pay schedule")
      .pipe(answers(["PAY_SCHEDULE_NOT_FOUND", ...readCodes, "INVALID_STATE_TRANSITION", "SERVICE_UNAVAILABLE"]))
      .annotate(
        OpenApi.Description,
        "Cancels an active schedule for good, on chain first (a direct `executeInstalment` then reverts), with a " +
          "`payment.canceled` event; a `team_admin` or `team_finance_admin` may. One completed or canceled already " +
          "answers 409 `INVALID_STATE_TRANSITION`."
      )
  )
  .add(
    HttpApiEndpoint.get("cashRequirement", "/v2/cash_requirements", {
      query: CashRequirementsQuery,
      success: Envelope(CashRequirementView),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Forecast a team's cash requirement")
      .pipe(answers([...readCodes, "NOT_IMPLEMENTED"]))
      .annotate(
        OpenApi.Description,
        "Every obligation due within the team's `cash_requirement_horizon_days` (registered intents and pay " +
          "schedule instalments still payable), by due time, against the balance of its account: `shortfall_cents` " +
          "and the first due time the balance cannot meet (`first_unmet_at`, `null` without a shortfall)."
      )
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Pay schedules",
      description: "Payroll signed once and paid every period on chain, and the cash it needs."
    })
  ) {}
