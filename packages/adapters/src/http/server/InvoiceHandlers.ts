/**
 * The invoice routes (issue 38) over the domain's `Invoices`: one line per endpoint. The PDF is answered as its
 * bytes, `application/pdf`, named for download by the invoice's id.
 */

import { Api } from "@svc/contract"
import { Invoices } from "@svc/domain/invoice"
import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { asCaller, respond } from "./Respond.ts"

/** The invoice handlers. */
export const InvoiceHandlers = HttpApiBuilder.group(
  Api,
  "invoices",
  Effect.fn(function* (handlers) {
    const invoices = yield* Invoices
    return handlers.handleAll({
      list: ({ query }) => respond((me) => invoices.list(me, query)),
      create: ({ payload }) => respond((me) => invoices.create(me, payload)),
      get: ({ params }) => respond((me) => invoices.get(me, params.invoice_nanoid)),
      cancel: ({ params }) => respond((me) => invoices.cancel(me, params.invoice_nanoid)),
      reject: ({ params, payload }) => respond((me) => invoices.reject(me, params.invoice_nanoid, payload)),
      pdf: ({ params }) =>
        Effect.map(
          asCaller((me) => invoices.pdf(me, params.invoice_nanoid)),
          (bytes) =>
            HttpServerResponse.uint8Array(bytes, {
              contentType: "application/pdf",
              headers: { "content-disposition": `inline; filename="${params.invoice_nanoid}.pdf"` }
            })
        )
    })
  })
).pipe(Layer.provide(Invoices.layer))
