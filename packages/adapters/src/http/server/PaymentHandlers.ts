/**
 * The payment routes (SPEC §4.3, §4.5, §4.6, §4.7) and the balance route (DESIGN §5) over the domain's `Payments`:
 * one line per endpoint. docs/payments.md tells the flow.
 */

import { Api } from "@svc/contract"
import type { ChainGateway } from "@svc/domain/chain"
import { Payments, type PaymentsPage, type PaymentsQuery } from "@svc/domain/payment"
import type { SignatureVerifier } from "@svc/domain/signature"
import { Effect, Layer } from "effect"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { asCaller, respond, respondSettled } from "./Respond.ts"

/**
 * A page of the payments query as JSON (the items are already their JSON form, so not walked through the schema
 * again): `data.next_cursor` only for a caller who paged (`limit` or `cursor`), so others see exactly the spec's
 * shape; `X-Next-Cursor` whenever more follows, which also tells them an unpaged answer stopped at its cap
 * (docs/decisions/0039).
 */
const pageResponse = (query: PaymentsQuery, page: PaymentsPage) => {
  const paged = query.limit !== undefined || query.cursor !== undefined
  const body = { data: paged ? { items: page.items, next_cursor: page.next_cursor } : { items: page.items } }
  return HttpServerResponse.jsonUnsafe(
    body,
    page.next_cursor === null ? {} : { headers: { "x-next-cursor": page.next_cursor } }
  )
}

/** Payments on the chain and the ledger. The query answers `{data}` without `success` (SPEC §1 rule 2). */
export const PaymentHandlers = HttpApiBuilder.group(
  Api,
  "payments",
  Effect.fn(function* (handlers) {
    const payments = yield* Payments
    return handlers.handleAll({
      query: ({ query }) =>
        Effect.map(
          asCaller((me) => payments.query(me, query)),
          (page) => pageResponse(query, page)
        ),
      create: ({ payload }) => respond((me) => payments.issueBatch(me, payload)),
      execute: ({ payload }) => respondSettled((me) => payments.execute(me, payload)),
      instant: ({ payload }) => respond((me) => payments.issueInstant(me, payload)),
      cancelIntent: ({ params }) => respond((me) => payments.cancelIntent(me, params.payment_nanoid))
    })
  })
).pipe(Layer.provide(Payments.layer))

/** GET /v2/balance: the svc account and its settlement-token balance in cents. */
export const BalanceHandlers = HttpApiBuilder.group(
  Api,
  "balance",
  Effect.fn(function* (handlers) {
    const payments = yield* Payments
    return handlers.handleAll({ get: ({ query }) => respond((me) => payments.balance(me, query)) })
  })
).pipe(Layer.provide(Payments.layer))

/** The ports the payment routes need besides storage: the chain, and the signature check the composition root picks. */
export type PaymentPorts = ChainGateway | SignatureVerifier
