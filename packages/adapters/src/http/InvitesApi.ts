/**
 * Invites (SPEC §4.9, §4.11, §4.12; bodies of DESIGN §5), on the domain's schemas. The invite issue owns the handlers.
 */
import {
  CreateInvitesRequest,
  CreateInvitesResponse,
  CreateManagerInvitesRequest,
  CreateManagerInvitesResponse,
  ExecuteManagerInvitesRequest,
  ExecuteManagerInvitesResponse,
  InvitesQuery,
  InvitesResponse
} from "@svc/domain/invite"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"

/** The invite routes; all need a bearer token. */
export class InvitesApi extends HttpApiGroup.make("invites")
  .add(
    HttpApiEndpoint.get("list", "/v2/invites", {
      query: InvitesQuery,
      success: InvitesResponse,
      error: EndpointErrors
    }).annotate(OpenApi.Description, "Invites of a team. Answers `{data}` (SPEC §1)."),
    HttpApiEndpoint.post("create", "/v2/invites", {
      payload: CreateInvitesRequest,
      success: CreateInvitesResponse,
      error: EndpointErrors
    }),
    HttpApiEndpoint.post("createManager", "/v2/invites/manager", {
      payload: CreateManagerInvitesRequest,
      success: CreateManagerInvitesResponse,
      error: EndpointErrors
    }),
    HttpApiEndpoint.put("executeManager", "/v2/invites/manager", {
      payload: ExecuteManagerInvitesRequest,
      success: ExecuteManagerInvitesResponse,
      error: EndpointErrors
    })
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Invites" })) {}
