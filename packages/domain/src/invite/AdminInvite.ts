/**
 * The invite of the wallet named `admin_wallet` when a team is created (decision 0041): it joins the team as
 * `team_admin` only once it accepts, signed in with that wallet. Nothing to mail a token to is needed: signing in
 * proves the wallet, so the invite is bound to it and carries no usable token.
 */
import type { Email } from "../Email.ts"
import type { WalletAddress } from "../Evm.ts"
import type { InviteId, UserId } from "../Ids.ts"
import type { Mail } from "../mail/Mail.ts"
import type { Team } from "../team/Team.ts"
import { displayNameOf, type User } from "../user/User.ts"
import type { Invite } from "./Invite.ts"

/** The pending `team_admin` invite of `wallet` to `team`; `email` is the wallet's user's, "" when unknown. */
export const adminInviteOf = (options: {
  readonly nanoid: InviteId
  readonly team: Team
  readonly wallet: WalletAddress
  readonly email: string
  readonly inviter: UserId
  /** The hash of a token nobody is given, so the token path never opens it. */
  readonly tokenHash: string
  readonly now: string
  readonly expiresAt: string
}): Invite => ({
  nanoid: options.nanoid,
  team_nanoid: options.team.nanoid,
  company_nanoid: options.team.company_nanoid,
  kind: "admin",
  role: "team_admin",
  // An admin invite is addressed to a wallet; the e-mail is only where the notice goes, when the user has one.
  email: options.email as Email,
  invitee_name: "",
  inviter_nanoid: options.inviter,
  account: options.wallet,
  anonymous: false,
  state: "pending",
  token_hash: options.tokenHash,
  expires_at: options.expiresAt,
  created_at: options.now,
  updated_at: options.now
})

/** The notice to a named admin who has an e-mail: what to sign in with and what to call; it holds no secret. */
export const adminInviteMailOf = (options: {
  readonly id: string
  readonly invite: Invite
  readonly team: Team
  readonly inviter: User | undefined
}): Mail => {
  const { invite, team } = options
  const inviter = options.inviter === undefined ? "" : displayNameOf(options.inviter)
  return {
    id: options.id,
    to: invite.email,
    subject: `Invitation to administer ${team.name} on svc`,
    text: [
      "Hello,",
      "",
      `${inviter === "" ? "You have been named" : `${inviter} named you`} team_admin of the new team "${team.name}".`,
      "",
      `To accept, sign in with the wallet ${invite.account ?? ""} and call POST /v2/invites/accept with invite_nanoid ${invite.nanoid}. The invite expires at ${invite.expires_at}.`,
      "If you did not expect this, ignore this e-mail or reject it (POST /v2/invites/reject)."
    ].join("\n")
  }
}
