/**
 * Invoices (issue 38; beyond the spec's routes, on SPEC §2.3's `invoice` fields): members bill their team, the
 * team's managers list them and its finance roles reject them, and anyone who may read one gets it as a PDF.
 */
import { InvoiceId } from "@svc/domain/Ids"
import {
  CreateInvoiceRequest,
  InvoiceResponse,
  InvoicesQuery,
  InvoicesResponse,
  RejectInvoiceRequest
} from "@svc/domain/invoice"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { answers, integerQuery } from "./OperationDocs.ts"

const invoicePath = { invoice_nanoid: InvoiceId }

/** The PDF's bytes. */
export const InvoicePdf = Schema.Uint8Array.pipe(
  HttpApiSchema.asUint8Array({ contentType: "application/pdf" }),
  Schema.annotate({ description: "The invoice as a PDF document" })
)

/** The invoice routes; all need a bearer token. */
export class InvoicesApi extends HttpApiGroup.make("invoices")
  .add(
    HttpApiEndpoint.get("list", "/v2/invoices", {
      query: InvoicesQuery,
      success: InvoicesResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "List a team's invoices")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"]))
      .pipe(integerQuery({ limit: { minimum: 1, maximum: 1000, default: 1000 } }))
      .annotate(
        OpenApi.Description,
        "A team's invoices, newest first: every invoice for its managers (`team_admin`, `team_finance_admin`, " +
          "`team_viewer`), their own for an employee or contractor. `status` keeps one state; `limit` (1 to 1000, " +
          "default 1000) and `cursor` (the previous page's `data.next_cursor`, `null` on the last page) page them."
      ),
    HttpApiEndpoint.post("create", "/v2/invoices", {
      payload: CreateInvoiceRequest,
      success: InvoiceResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Bill your team")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "INVOICE_AMOUNT_MISMATCH", "INVOICE_NUMBER_TAKEN"]))
      .annotate(
        OpenApi.Description,
        "An employee or contractor of the team bills it: the invoice, `submitted`, with its `iv-` nanoid, and " +
          "`invoice.created`. A `flat` invoice gives `amount_cents`; a `time_entry` invoice gives `time_entries` and " +
          "`hourly_rate_usd_cents` (and no `amount_cents`, or the same), and its amount is their total time times the " +
          "rate, rounded to the cent (an `amount_cents` that differs answers 400 `INVOICE_AMOUNT_MISMATCH`); each " +
          "entry is more than no time and at most 24 hours. `invoice_number` is yours, once per team."
      ),
    HttpApiEndpoint.get("get", "/v2/invoices/:invoice_nanoid", {
      params: invoicePath,
      success: InvoiceResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Read an invoice")
      .pipe(answers(["INVOICE_NOT_FOUND"]))
      .annotate(
        OpenApi.Description,
        "The member who billed it and the team's managers read it; anyone else gets 404 `INVOICE_NOT_FOUND`."
      ),
    HttpApiEndpoint.delete("cancel", "/v2/invoices/:invoice_nanoid", {
      params: invoicePath,
      success: InvoiceResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Cancel your invoice")
      .pipe(answers(["INVOICE_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "INVALID_STATE_TRANSITION"]))
      .annotate(
        OpenApi.Description,
        "Its author withdraws an invoice nothing of which is paid or being paid: `canceled`, with `invoice.canceled`. " +
          "A paid or partially paid invoice, or one a payment is under way for, answers 409 `INVALID_STATE_TRANSITION`."
      ),
    HttpApiEndpoint.post("reject", "/v2/invoices/:invoice_nanoid/reject", {
      params: invoicePath,
      payload: RejectInvoiceRequest,
      success: InvoiceResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Reject an invoice")
      .pipe(answers(["INVOICE_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "INVALID_STATE_TRANSITION"]))
      .annotate(
        OpenApi.Description,
        "A `team_admin` or `team_finance_admin` refuses an unpaid invoice with a `reason` the member reads: " +
          "`rejected`, with `invoice.canceled` carrying the reason."
      ),
    HttpApiEndpoint.get("pdf", "/v2/invoices/:invoice_nanoid/pdf", {
      params: invoicePath,
      success: InvoicePdf,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "The invoice as a PDF")
      .pipe(answers(["INVOICE_NOT_FOUND"]))
      .annotate(
        OpenApi.Description,
        "A document a person reads: both parties, the lines, the total, the status and, once paid, each payment's " +
          "transaction and block (`application/pdf`)."
      )
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Invoices",
      description: "What members bill their team, and what paid it."
    })
  ) {}
