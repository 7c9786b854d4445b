/**
 * Request and response bodies of the invite routes (SPEC §4.9, §4.11, §4.12 with the shapes of DESIGN §5).
 */
import { Schema } from "effect"
import { Mailbox } from "../Email.ts"
import { Signature, WalletAddress } from "../Evm.ts"
import { maxRoleGrantsPerRequest, RolesTypedDataBundle, RolesTypedDataMessage } from "../eip712/TypedData.ts"
import { withDefault } from "../FieldDefault.ts"
import { CompanyId, InviteId, TeamId } from "../Ids.ts"
import { PlainText } from "../Text.ts"
import { InviteView, ManagerRole, MemberRole } from "./Invite.ts"
import { InviteMachine } from "./InviteMachine.ts"

/** Most invites in one request (as the team users filter's 100 e-mails, SPEC §8); manager invites sign one grant each. */
export const maxInvitesPerRequest = maxRoleGrantsPerRequest

/** Prefilled profile fields of a warm invite, bounded as the profile keeps them (docs/decisions/0038). */
export const InvitePrefillRequest = Schema.Struct({
  first_name: Schema.optionalKey(PlainText({ max: 100, what: "a first name" })),
  last_name: Schema.optionalKey(PlainText({ max: 100, what: "a last name" })),
  phone: Schema.optionalKey(PlainText({ max: 32, what: "a phone number" })),
  company_name: Schema.optionalKey(PlainText({ max: 200, what: "a company name" }))
})

/** GET /v2/invites query: the team (or company) whose invites to list (SPEC §4.11). */
export const InvitesQuery = Schema.Struct({ nanoid: Schema.Union([TeamId, CompanyId]) })
export type InvitesQuery = typeof InvitesQuery.Type

/** GET /v2/invites response: `data` is the list; `success` may be present (SPEC §1 rule 2 vs §4.11). */
export const InvitesResponse = Schema.Struct({
  success: Schema.optionalKey(Schema.Literal(true)),
  data: Schema.Array(InviteView)
})
export type InvitesResponse = typeof InvitesResponse.Type

/** POST /v2/invites body: invite employees or contractors by e-mail (DESIGN §5). */
export const CreateInvitesRequest = Schema.Struct({
  nanoid: TeamId,
  invites: Schema.Array(Schema.Struct({ email: Mailbox, prefill: Schema.optionalKey(InvitePrefillRequest) })).check(
    Schema.isMinLength(1),
    Schema.isMaxLength(maxInvitesPerRequest)
  ),
  role: MemberRole,
  anonymous: withDefault<typeof Schema.Boolean>(false)(Schema.Boolean)
})
export type CreateInvitesRequest = typeof CreateInvitesRequest.Type

/** POST /v2/invites response: the new invites' ids. */
export const CreateInvitesResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ nanoids: Schema.Array(InviteId) })
})
export type CreateInvitesResponse = typeof CreateInvitesResponse.Type

/** POST /v2/invites/manager body: who to invite as a manager, with which role, to which wallet. */
export const CreateManagerInvitesRequest = Schema.Struct({
  nanoid: TeamId,
  invites: Schema.Array(Schema.Struct({ email: Mailbox, role: ManagerRole, wallet: WalletAddress })).check(
    Schema.isMinLength(1),
    Schema.isMaxLength(maxInvitesPerRequest)
  )
})
export type CreateManagerInvitesRequest = typeof CreateManagerInvitesRequest.Type

/** POST /v2/invites/manager response: the role-grants bundle to sign, and the invites it covers. */
export const CreateManagerInvitesResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ ...RolesTypedDataBundle.fields, invites: Schema.Array(InviteId) })
})
export type CreateManagerInvitesResponse = typeof CreateManagerInvitesResponse.Type

/** PUT /v2/invites/manager body (SPEC §4.9). */
export const ExecuteManagerInvitesRequest = Schema.Struct({
  invites: Schema.Array(InviteId).check(Schema.isMinLength(1), Schema.isMaxLength(maxInvitesPerRequest)),
  signer: WalletAddress,
  typed_data: RolesTypedDataMessage,
  signature: Signature
})
export type ExecuteManagerInvitesRequest = typeof ExecuteManagerInvitesRequest.Type

/** PUT /v2/invites/manager response. */
export const ExecuteManagerInvitesResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({ invites: Schema.Array(Schema.String), transaction: Schema.String })
})
export type ExecuteManagerInvitesResponse = typeof ExecuteManagerInvitesResponse.Type

/**
 * PUT /v2/invites/manager answer (202) when the grant's transaction was sent and is not final within the settlement
 * wait (decision 0061): `transaction` is the hash of the version in flight. The same PUT answers 202 while it is, and
 * 200 once final, when the invites are accepted.
 */
export const ExecuteManagerInvitesInFlight = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    invites: Schema.Array(Schema.String),
    transaction: Schema.String,
    status: Schema.Literal("in_flight")
  })
})
export type ExecuteManagerInvitesInFlight = typeof ExecuteManagerInvitesInFlight.Type

/**
 * POST /v2/invites/accept and /reject body: the invite and the token of its e-mail (DESIGN §5b). An admin invite of
 * a new team is bound to a wallet and needs no token (decision 0041).
 */
export const AnswerInviteRequest = Schema.Struct({
  invite_nanoid: InviteId,
  token: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(256)))
})
export type AnswerInviteRequest = typeof AnswerInviteRequest.Type

/** DELETE /v2/invites/{invite_nanoid} and POST /v2/invites/{invite_nanoid}/resend path. */
export const InvitePath = Schema.Struct({ invite_nanoid: InviteId })

/** What accept, reject, revoke and resend answer: the invite's state after the step. */
export const InviteStateResponse = Schema.Struct({
  success: Schema.Literal(true),
  data: Schema.Struct({
    invite_nanoid: InviteId,
    team_nanoid: TeamId,
    state: InviteMachine.State,
    role: Schema.String,
    expires_at: Schema.String
  })
})
export type InviteStateResponse = typeof InviteStateResponse.Type
