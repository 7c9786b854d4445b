/**
 * Invites: the record the domain keeps, the roles one can be invited to, and the list element of SPEC §2.6.
 */
import { Schema } from "effect"
import { Email } from "../Email.ts"
import { Address } from "../Evm.ts"
import { CompanyId, InviteId, TeamId, UserId } from "../Ids.ts"
import { ManagerRole, type Role } from "../membership/Role.ts"
import { IsoTimestamp } from "../Timestamp.ts"
import { InviteMachine } from "./InviteMachine.ts"

/** Roles a manager invite grants (DESIGN §5), signed as `{role, account}`: the membership's manager roles. */
export { ManagerRole }

/**
 * Roles a member invite grants (POST /v2/invites). `contractor` is the real service's spelling and stays accepted
 * for portability; accepting the invite makes a `team_contractor` membership (`membershipRoleOf`).
 */
export const MemberRole = Schema.Literals(["team_employee", "team_contractor", "contractor"])
export type MemberRole = typeof MemberRole.Type

/** The membership an accepted invite creates. */
export const membershipRoleOf = (role: MemberRole | ManagerRole): Role =>
  role === "contractor" ? "team_contractor" : role

/** Details an inviter may fill in for the invitee (a "warm" invite). */
export const InvitePrefill = Schema.Struct({
  first_name: Schema.optionalKey(Schema.String),
  last_name: Schema.optionalKey(Schema.String),
  phone: Schema.optionalKey(Schema.String),
  company_name: Schema.optionalKey(Schema.String)
})
export type InvitePrefill = typeof InvitePrefill.Type

/**
 * An invite's e-mail: an address; or "" for an admin invite whose wallet's user has none (an admin invite is
 * addressed to a wallet, and the e-mail is only where its notice goes, `adminInviteOf`).
 */
export const InviteEmail = Schema.Union([Email, Schema.Literal("").pipe(Schema.brand("Email"))])

/** An invite as recorded. */
export const Invite = Schema.Struct({
  nanoid: InviteId,
  team_nanoid: TeamId,
  company_nanoid: Schema.optionalKey(CompanyId),
  /**
   * `member`: by e-mail, answered with the mailed token; `manager`: answered by the admin's signed grant; `admin`:
   * the admin named when a team is created (decision 0041), answered by that wallet signed in, no token.
   */
  kind: Schema.Literals(["member", "manager", "admin"]),
  role: Schema.Union([MemberRole, ManagerRole]),
  email: InviteEmail,
  invitee_name: Schema.String,
  inviter_nanoid: UserId,
  /** For a manager or admin invite: the wallet the role is granted to. */
  account: Schema.optionalKey(Address),
  anonymous: Schema.Boolean,
  prefill: Schema.optionalKey(InvitePrefill),
  state: InviteMachine.State,
  /** sha256 of the single-use token the invitee's e-mail carries (hex); the token itself is never stored. */
  token_hash: Schema.String,
  /** The user who accepted it. */
  user_nanoid: Schema.optionalKey(UserId),
  expires_at: IsoTimestamp,
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp
})
export type Invite = typeof Invite.Type

/** How long an invite stays pending unless answered, by default (`INVITE_TTL_DAYS`, DESIGN §5b): 7 days. */
export const defaultInviteTtlDays = 7

/** Who the invite's e-mail and list entry name: the invitee's name from the prefill, "" when not given. */
export const inviteeNameOf = (invite: Pick<Invite, "prefill">): string =>
  `${invite.prefill?.first_name ?? ""} ${invite.prefill?.last_name ?? ""}`.trim()

const NameAndAvatar = Schema.Struct({ name: Schema.String, avatar: Schema.String })

/** An element of the invites list (SPEC §2.6). */
export const InviteView = Schema.Struct({
  nanoid: Schema.String,
  invitee_name: Schema.String,
  email: Schema.String,
  inviter_name: Schema.String,
  inviter_email: Schema.String,
  company: NameAndAvatar,
  team: NameAndAvatar
})
export type InviteView = typeof InviteView.Type

/**
 * What the invite page shows to whoever holds the link (`GET /invites/accept`), before any wallet: the team, the role,
 * who invited (unless anonymous), to which e-mail, and whether it can still be answered.
 */
export interface InvitePreview {
  readonly invite_nanoid: InviteId
  readonly kind: Invite["kind"]
  readonly role: Role
  readonly team_name: string
  readonly inviter_name: string
  readonly email: string
  /** `expired` also for a pending invite past its lifetime. */
  readonly state: Invite["state"]
  readonly expires_at: string
  /** The wallet a manager invite grants its role to. */
  readonly account?: string | undefined
}
