/**
 * Invites (SPEC §4.9, §4.11, §4.12; bodies of DESIGN §5). The invite issue owns the handlers.
 */
import { Address, Signature } from "@svc/domain/Evm"
import { InviteId, TeamId } from "@svc/domain/Ids"
import { ManagerRole } from "@svc/domain/membership"
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { EndpointErrors } from "./ApiError.ts"
import { Authentication } from "./Authentication.ts"
import { DataOnly, Envelope } from "./Envelope.ts"

const Text = (max: number) => Schema.String.pipe(Schema.check(Schema.isMaxLength(max)))
const Email = Text(254).pipe(
  Schema.check(Schema.isPattern(/^[^@\s]+@[^@\s]+\.[^@\s]+$/, { message: "Expected an e-mail address" }))
)

/** One invite of the list (SPEC §2.6). */
export const InviteView = Schema.Struct({
  nanoid: Schema.String,
  invitee_name: Schema.String,
  email: Schema.String,
  inviter_name: Schema.String,
  inviter_email: Schema.String,
  company: Schema.Struct({ name: Schema.String, avatar: Schema.String }),
  team: Schema.Struct({ name: Schema.String, avatar: Schema.String })
})

const InviteEntry = Schema.Struct({
  email: Email,
  prefill: Schema.optionalKey(
    Schema.Struct({
      first_name: Schema.optionalKey(Text(100)),
      last_name: Schema.optionalKey(Text(100)),
      phone: Schema.optionalKey(Text(40)),
      company_name: Schema.optionalKey(Text(200))
    })
  )
})

/** `POST /v2/invites` body (DESIGN §5). */
export const CreateInvitesBody = Schema.Struct({
  nanoid: TeamId,
  invites: Schema.Array(InviteEntry).pipe(Schema.check(Schema.isBetweenLength(1, 100))),
  role: Schema.Literals(["team_employee", "team_contractor"]),
  anonymous: Schema.optionalKey(Schema.Boolean)
})

/** `POST /v2/invites/manager` body. */
export const CreateManagerInvitesBody = Schema.Struct({
  nanoid: TeamId,
  invites: Schema.Array(Schema.Struct({ email: Email, account: Address })).pipe(
    Schema.check(Schema.isBetweenLength(1, 100))
  ),
  role: ManagerRole
})

/** `PUT /v2/invites/manager` body (SPEC §4.9). */
export const ExecuteManagerInvitesBody = Schema.Struct({
  invites: Schema.Array(InviteId).pipe(Schema.check(Schema.isBetweenLength(1, 100))),
  signer: Address,
  typed_data: Schema.Struct({
    from: Text(66),
    to: Text(66),
    salt: Text(80),
    expires: Text(32),
    data: Schema.Array(Schema.Struct({ role: Text(40), account: Text(66) })).pipe(Schema.check(Schema.isMaxLength(100)))
  }),
  signature: Signature
})

/** The invite routes; all need a bearer token. */
export class InvitesApi extends HttpApiGroup.make("invites")
  .add(
    HttpApiEndpoint.get("list", "/v2/invites", {
      query: { nanoid: TeamId },
      success: DataOnly(Schema.Array(InviteView)),
      error: EndpointErrors
    }).annotate(OpenApi.Description, "Invites of a team. Answers `{data}` without `success` (SPEC §1)."),
    HttpApiEndpoint.post("create", "/v2/invites", {
      payload: CreateInvitesBody,
      success: Envelope(Schema.Struct({ nanoids: Schema.Array(Schema.String) })),
      error: EndpointErrors
    }),
    HttpApiEndpoint.post("createManager", "/v2/invites/manager", {
      payload: CreateManagerInvitesBody,
      success: Envelope(Schema.Unknown),
      error: EndpointErrors
    }),
    HttpApiEndpoint.put("executeManager", "/v2/invites/manager", {
      payload: ExecuteManagerInvitesBody,
      success: Envelope(Schema.Struct({ invites: Schema.Array(Schema.String), transaction: Schema.String })),
      error: EndpointErrors
    })
  )
  .middleware(Authentication)
  .annotateMerge(OpenApi.annotations({ title: "Invites" })) {}
