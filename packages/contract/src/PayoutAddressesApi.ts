/**
 * A member's payout address, the API's "withdraw account" (issue 39, decision 0108): read it, get the proof to sign,
 * set it with both signatures; and report a change that was not the member's, from the link of its notice.
 */
import { PayoutAddressTypedDataBundle } from "@svc/domain/eip712"
import {
  IssuePayoutProofBody,
  PayoutAddressView,
  ReportedPayoutChange,
  ReportPayoutChangeBody,
  SetPayoutAddressBody
} from "@svc/domain/payout"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { Envelope } from "./Envelope.ts"
import { answers } from "./OperationDocs.ts"

/** The caller's payout address; all need a bearer token. */
export class PayoutAddressesApi extends HttpApiGroup.make("payoutAddresses")
  .add(
    HttpApiEndpoint.get("get", "/v2/user/withdraw_account", {
      success: Envelope(PayoutAddressView),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Get my payout address")
      .pipe(answers(["USER_NOT_FOUND"]))
      .annotate(
        OpenApi.Description,
        "Where the caller's teams pay them: `address` (`null` when none was set) and `paid_to`, that address or the caller's own svc account; the last change and when."
      ),
    HttpApiEndpoint.post("issueProof", "/v2/user/withdraw_account", {
      payload: IssuePayoutProofBody,
      success: Envelope(PayoutAddressTypedDataBundle),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Get the proof of a payout address to sign")
      .pipe(answers(["USER_NOT_FOUND", "NOT_IMPLEMENTED"]))
      .annotate(
        OpenApi.Description,
        "EIP-712 typed data (`SetPayoutAddressRequest`, the forwarder's domain) naming the caller and `address`, from the caller's wallet and for their svc account, valid 10 minutes. Both `address` (its key, or ERC-1271 for a contract wallet) and the caller's wallet sign it unchanged; send both signatures with `PUT`. A new proof replaces the last one issued to the caller. The service's own contracts are refused (400)."
      ),
    HttpApiEndpoint.put("set", "/v2/user/withdraw_account", {
      payload: SetPayoutAddressBody,
      success: Envelope(PayoutAddressView),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Set my payout address")
      .pipe(
        answers([
          "TYPED_DATA_NOT_FOUND",
          "TYPED_DATA_MISMATCH",
          "EXPIRED_TYPED_DATA",
          "INVALID_SIGNATURE",
          "ALREADY_EXECUTED",
          "INVALID_STATE_TRANSITION",
          "USER_NOT_FOUND",
          "NOT_IMPLEMENTED"
        ])
      )
      .annotate(
        OpenApi.Description,
        "Sets the caller's payout address from the proof `POST` issued, signed by the address (`address_signature`) and by the caller's wallet (`wallet_signature`): an access token alone cannot change it. Payments issued from now on go there; typed data issued before keeps the address it was signed with. The caller gets a notice by e-mail with a link to report the change, each of their teams gets `withdraw_account.updated`, and a user already using the address (as wallet or payout address) makes a duplicate pair (`withdraw_account.duplicated_detected`)."
      )
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Payout addresses",
      description: "Where a member is paid instead of their svc account, proven by two signatures (decision 0108)."
    })
  ) {}

/** The report of a payout address change from its notice: the link's token authorises it, not a bearer token. */
export class PayoutReportsApi extends HttpApiGroup.make("payoutReports")
  .add(
    HttpApiEndpoint.post("report", "/v2/user/withdraw_account/report", {
      payload: ReportPayoutChangeBody,
      success: Envelope(ReportedPayoutChange),
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Report a payout address change that was not mine")
      .pipe(answers(["PAYOUT_REPORT_INVALID", "INVALID_STATE_TRANSITION"]))
      .annotate(
        OpenApi.Description,
        "With the change and token of the notice's link (no bearer token: the access token may be what was stolen). Undoes the change (the address before it is back) and tells each of the member's teams (`withdraw_account.updated`, `change: \"reported\"`). A link works once, for 30 days, and only for the member's last change (409 otherwise)."
      )
  )
  .annotateMerge(
    OpenApi.annotations({
      title: "Payout address reports",
      description: "Reporting a payout address change from the link of its notice (decision 0108)."
    })
  ) {}
