/**
 * Balance (SPEC §4.12; shape of DESIGN §5), on the domain's schemas. The balance issue owns the handler.
 */
import { BalanceQuery, BalanceResponse } from "@svc/domain/payment"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { answers } from "./OperationDocs.ts"

/** The balance route; needs a bearer token. */
export class BalanceApi extends HttpApiGroup.make("balance")
  .add(
    HttpApiEndpoint.get("get", "/v2/balance", {
      query: BalanceQuery,
      success: BalanceResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Get a balance")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS", "USER_NOT_FOUND", "NOT_FOUND", "NOT_IMPLEMENTED"]))
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Balance",
      description: "USDC held by a team's account or a user's wallet, read from the chain."
    })
  ) {}
