/** GET /v2/deposits over the domain's `listDeposits` (decision 0064). */

import { Api } from "@svc/contract"
import { ChainGateway } from "@svc/domain/chain"
import { DepositLedger, listDeposits } from "@svc/domain/deposit"
import { TeamAccess } from "@svc/domain/membership"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { asCaller } from "./Respond.ts"

/** The deposits handlers: what the ledger holds, confirmations from the chain when there is one. */
export const DepositHandlers = HttpApiBuilder.group(
  Api,
  "deposits",
  Effect.fn(function* (handlers) {
    const chain = yield* ChainGateway.present
    const access = yield* TeamAccess
    const ledger = yield* DepositLedger
    return handlers.handleAll({
      list: ({ query }) =>
        asCaller((me) =>
          listDeposits(me, query, chain).pipe(
            Effect.provideService(TeamAccess, access),
            Effect.provideService(DepositLedger, ledger)
          )
        )
    })
  })
).pipe(Layer.provide(TeamAccess.layer))
