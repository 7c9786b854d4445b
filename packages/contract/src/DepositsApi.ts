/**
 * Deposits (DESIGN: Deposits; beyond the spec, decision 0064): money that arrived at a team's account, as the deposit
 * follower read it from the chain.
 */
import { DepositsQuery, DepositsResponse } from "@svc/domain/deposit"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { answers } from "./OperationDocs.ts"

/** The deposits route; needs a bearer token. */
export class DepositsApi extends HttpApiGroup.make("deposits")
  .add(
    HttpApiEndpoint.get("list", "/v2/deposits", {
      query: DepositsQuery,
      success: DepositsResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "List a team's deposits")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"]))
      .annotate(
        OpenApi.Description,
        "Transfers of USDC into the team's account, newest first (block, then log index), beyond the spec. `limit` " +
          "(1 to 1000, default 1000) and `cursor` (the previous page's `data.next_cursor`, `null` on the last page) " +
          "page them. `state`: `pending` until `CHAIN_CONFIRMATIONS` deep, then `confirmed` (announced by " +
          "`deposit.received`, or `token.transfer` from another team's account); `reorged` once no longer on the chain."
      )
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Deposits",
      description: "USDC that reached a team's account from outside, followed on chain."
    })
  ) {}
