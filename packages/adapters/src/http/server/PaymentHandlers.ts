/**
 * The payment routes (SPEC §4.3, §4.5, §4.6, §4.7) and the balance route (DESIGN §5) over the domain's `Payments`:
 * one line per endpoint. docs/payments.md tells the flow.
 */
import type { ChainGateway } from "@svc/domain/chain"
import { Payments } from "@svc/domain/payment"
import type { SignatureVerifier } from "@svc/domain/signature"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { Api } from "../Api.ts"
import { asCaller, respond } from "./Respond.ts"

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
          (items) => ({ data: { items } })
        ),
      create: ({ payload }) => respond((me) => payments.issueBatch(me, payload)),
      execute: ({ payload }) => respond((me) => payments.execute(me, payload)),
      instant: ({ payload }) => respond((me) => payments.issueInstant(me, payload))
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
