/**
 * Invites (SPEC §4.9, §4.11, §4.12; bodies of DESIGN §5 and §5b), on the domain's schemas.
 */
import { InviteId } from "@svc/domain/Ids"
import {
  AnswerInviteRequest,
  CreateInvitesRequest,
  CreateInvitesResponse,
  CreateManagerInvitesRequest,
  CreateManagerInvitesResponse,
  ExecuteManagerInvitesInFlight,
  ExecuteManagerInvitesRequest,
  ExecuteManagerInvitesResponse,
  InviteStateResponse,
  InvitesQuery,
  InvitesResponse
} from "@svc/domain/invite"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { answers, signedRequestCodes } from "./OperationDocs.ts"

const invitePath = { invite_nanoid: InviteId }

const inviteClosed = ["INVITE_ALREADY_ANSWERED", "INVITE_REVOKED", "INVITE_EXPIRED"] as const

/** The invite routes; all need a bearer token. */
export class InvitesApi extends HttpApiGroup.make("invites")
  .add(
    HttpApiEndpoint.get("list", "/v2/invites", {
      query: InvitesQuery,
      success: InvitesResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "List pending invites")
      .pipe(answers(["TEAM_NOT_FOUND", "COMPANY_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"]))
      .annotate(
        OpenApi.Description,
        "Pending invites of a team, or of every team of a company the caller manages. Answers `{data}` (SPEC §1)."
      ),
    HttpApiEndpoint.post("create", "/v2/invites", {
      payload: CreateInvitesRequest,
      success: CreateInvitesResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Invite employees or contractors")
      .pipe(answers(["TEAM_NOT_FOUND", "INSUFFICIENT_PERMISSIONS"]))
      .annotate(
        OpenApi.Description,
        "Invite up to 100 employees or contractors by e-mail; each gets a single-use link."
      ),
    HttpApiEndpoint.post("accept", "/v2/invites/accept", {
      payload: AnswerInviteRequest,
      success: InviteStateResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Accept an invite")
      .pipe(
        answers(["INVITE_NOT_FOUND", ...inviteClosed, "TEAM_NOT_FOUND", "ROLE_CONFLICT", "INVALID_STATE_TRANSITION"])
      )
      .annotate(
        OpenApi.Description,
        "The signed-in invitee accepts with the token of the e-mail's link (a new team's admin invite: signed in with its wallet, no token): a member with the invite's role. A manager invite is accepted by its signed grant (PUT /v2/invites/manager), not here: `INVALID_STATE_TRANSITION`."
      ),
    HttpApiEndpoint.post("reject", "/v2/invites/reject", {
      payload: AnswerInviteRequest,
      success: InviteStateResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Reject an invite")
      .pipe(answers(["INVITE_NOT_FOUND", ...inviteClosed]))
      .annotate(
        OpenApi.Description,
        "The signed-in invitee declines with the token of the e-mail's link; a manager invite, signed in with the wallet it grants to."
      ),
    HttpApiEndpoint.delete("revoke", "/v2/invites/:invite_nanoid", {
      params: invitePath,
      success: InviteStateResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Revoke an invite")
      .pipe(answers(["INVITE_NOT_FOUND", ...inviteClosed]))
      .annotate(OpenApi.Description, "A team admin revokes a pending invite."),
    HttpApiEndpoint.post("resend", "/v2/invites/:invite_nanoid/resend", {
      params: invitePath,
      success: InviteStateResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Resend an invite")
      .pipe(answers(["INVITE_NOT_FOUND", ...inviteClosed, "INVALID_STATE_TRANSITION"]))
      .annotate(OpenApi.Description, "A team admin sends a pending invite again with a new token and lifetime."),
    HttpApiEndpoint.post("createManager", "/v2/invites/manager", {
      payload: CreateManagerInvitesRequest,
      success: CreateManagerInvitesResponse,
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Create typed data for manager invites")
      .pipe(
        answers([
          "TEAM_NOT_FOUND",
          "INSUFFICIENT_PERMISSIONS",
          "INVALID_STATE_TRANSITION",
          "ROLE_CONFLICT",
          "NOT_IMPLEMENTED"
        ])
      ),
    HttpApiEndpoint.put("executeManager", "/v2/invites/manager", {
      payload: ExecuteManagerInvitesRequest,
      success: [
        ExecuteManagerInvitesResponse,
        ExecuteManagerInvitesInFlight.pipe(
          HttpApiSchema.status(202),
          Schema.annotate({ description: "Sent, not final yet: the transaction in flight (docs/decisions/0061)" })
        )
      ],
      error: EndpointErrors
    })
      .annotate(OpenApi.Summary, "Execute signed manager invites")
      .pipe(answers(["TEAM_NOT_FOUND", ...inviteClosed, ...signedRequestCodes]))
  )
  .middleware(Authentication)
  .annotateMerge(
    OpenApi.annotations({
      title: "Invites",
      description: "Member invites by e-mail, and manager roles granted on chain."
    })
  ) {}
