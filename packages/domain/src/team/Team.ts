/**
 * Teams: the stored record, the views of SPEC §2.5 and DESIGN §5, and the bodies of the team routes.
 */
import { Schema } from "effect"
import { isAddress } from "viem"
import { type Address, WalletAddress } from "../Evm.ts"
import { CompanyId, TeamId } from "../Ids.ts"
import { ImageUrl, PlainText } from "../Text.ts"

/** A stored team. `svc_account` is its on-chain account address, empty until deployed; deleted teams keep their id. */
export const Team = Schema.Struct({
  nanoid: TeamId,
  company_nanoid: CompanyId,
  name: Schema.String,
  description: Schema.String,
  avatar: Schema.String,
  svc_account: Schema.String,
  status: Schema.Literals(["active", "deleted"]),
  created_at: Schema.String,
  updated_at: Schema.String
})
export type Team = typeof Team.Type

/** The team's svc account, or `undefined` while none is deployed. */
export const teamAccountOf = (team: Team): Address | undefined =>
  isAddress(team.svc_account, { strict: false }) ? team.svc_account : undefined

/** A team name: 2 to 50 characters (reference: `INVALID_TEAM_NAME`), no control or bidi characters. */
export const TeamName = PlainText({ min: 2, max: 50, what: "a team name" })

/** A team description: up to 500 characters, line breaks allowed, no other control or bidi characters. */
export const TeamDescription = PlainText({ max: 500, what: "a description", multiline: true })

/**
 * `POST /v2/teams` (DESIGN §5). The caller becomes the team's `team_admin`; another `admin_wallet` is invited as one
 * and joins when it accepts (decision 0041).
 */
export const CreateTeamBody = Schema.Struct({
  name: TeamName,
  description: Schema.optionalKey(TeamDescription),
  entity_nanoid: CompanyId,
  admin_wallet: WalletAddress
})
export type CreateTeamBody = typeof CreateTeamBody.Type

/** `PUT /v2/teams/{team_nanoid}`: the fields to change. */
export const UpdateTeamBody = Schema.Struct({
  name: Schema.optionalKey(TeamName),
  description: Schema.optionalKey(TeamDescription),
  avatar: Schema.optionalKey(ImageUrl)
})
export type UpdateTeamBody = typeof UpdateTeamBody.Type

/**
 * The `data` of `POST /v2/teams` (reference). `admin_wallet` is the team's admin now (the caller);
 * `admin_invite_nanoid` the pending invite of the `admin_wallet` asked for, when it is another wallet.
 */
export const CreatedTeam = Schema.Struct({
  team_nanoid: Schema.String,
  name: Schema.String,
  description: Schema.String,
  entity_nanoid: Schema.String,
  admin_wallet: Schema.String,
  created_at: Schema.String,
  member_count: Schema.Int,
  status: Schema.String,
  admin_invite_nanoid: Schema.optionalKey(Schema.String)
})
export type CreatedTeam = typeof CreatedTeam.Type

/** One element of `GET /v2/user/teams` (DESIGN §5). */
export const TeamListItem = Schema.Struct({
  nanoid: Schema.String,
  name: Schema.String,
  description: Schema.String,
  member_count: Schema.Int,
  status: Schema.String,
  role: Schema.String
})
export type TeamListItem = typeof TeamListItem.Type

/** An administrator of a team, as `GET /v2/teams/{team_nanoid}` lists it (SPEC §2.5). */
export const TeamAdministrator = Schema.Struct({
  relationship_nanoid: Schema.String,
  user_nanoid: Schema.String,
  avatar: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  email: Schema.String,
  type: Schema.String
})

/**
 * `GET /v2/teams/{team_nanoid}` (SPEC §2.5). `balance` is in cents, as a decimal string, shown only to roles that may
 * read the balance (`balance.read`); absent for employees and contractors.
 */
export const TeamView = Schema.Struct({
  nanoid: Schema.String,
  name: Schema.String,
  avatar: Schema.String,
  balance: Schema.optionalKey(Schema.String),
  administrators: Schema.Array(TeamAdministrator)
})
export type TeamView = typeof TeamView.Type
