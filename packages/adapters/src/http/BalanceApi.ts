/**
 * Balance (SPEC §4.12; shape of DESIGN §5). The balance issue owns the handler.
 */
import { TeamId } from "@svc/domain/Ids"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { Envelope } from "./Envelope.ts"

/** `GET /v2/balance?nanoid=te-...` answer. */
export const BalanceView = Schema.Struct({
  svc_account_address: Schema.String,
  balances: Schema.Array(Schema.Struct({ currency: Schema.String, balance_cents: Schema.Int }))
})

/** The balance route; needs a bearer token. */
export class BalanceApi extends HttpApiGroup.make("balance")
  .add(
    HttpApiEndpoint.get("get", "/v2/balance", {
      query: { nanoid: TeamId, currencies: Schema.optional(Schema.String.pipe(Schema.check(Schema.isMaxLength(100)))) },
      success: Envelope(BalanceView),
      error: EndpointErrors
    })
  )
  .middleware(Authentication) {}
