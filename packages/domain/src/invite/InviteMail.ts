/** The mail an invite sends: who invites (unless anonymous), to what, and the single-use link. */
import type { Mail } from "../mail/Mail.ts"
import type { Team } from "../team/Team.ts"
import { displayNameOf, type User } from "../user/User.ts"
import { type Invite, inviteeNameOf, membershipRoleOf } from "./Invite.ts"

/** The invite mail: who invites (unless anonymous), to what, and the single-use link. */
export const inviteMailOf = (options: {
  readonly id: string
  readonly invite: Invite
  readonly token: string
  readonly team: Team
  readonly inviter: User | undefined
  readonly publicBaseUrl: string
}): Mail => {
  const { invite, team } = options
  const link = `${options.publicBaseUrl}/invites/accept?invite=${invite.nanoid}&token=${options.token}`
  const inviter = invite.anonymous || options.inviter === undefined ? "" : displayNameOf(options.inviter)
  const invitee = inviteeNameOf(invite)
  if (invite.kind === "manager") {
    return {
      id: options.id,
      to: invite.email,
      subject: `${inviter === "" ? "You are" : `${inviter} is`} making you ${membershipRoleOf(invite.role)} of ${team.name} on svc`,
      text: [
        "Hello,",
        "",
        `${inviter === "" ? "A team admin" : inviter} is granting the wallet ${invite.account} the role ${membershipRoleOf(invite.role)} in the team "${team.name}".`,
        "The role takes effect once they sign the grant: there is nothing for you to sign.",
        "",
        `See the invite, or decline it: ${link}`,
        "",
        `To decline, open the link and sign in with that wallet. The link works until the invite is answered, and expires at ${invite.expires_at}.`,
        "If you did not expect this, decline it, or tell the team."
      ].join("\n")
    }
  }
  return {
    id: options.id,
    to: invite.email,
    subject: `Invitation to join ${team.name} on svc`,
    text: [
      invitee === "" ? "Hello," : `Hello ${invitee},`,
      "",
      `${inviter === "" ? "You have been invited" : `${inviter} invited you`} to join the team "${team.name}" as ${membershipRoleOf(invite.role)}.`,
      "",
      `Accept the invite: ${link}`,
      "",
      `The link opens a page where you connect the wallet you want to be paid to and accept, or decline. It works once and expires at ${invite.expires_at}.`,
      `(From code: POST /v2/invites/accept or /v2/invites/reject with invite_nanoid ${invite.nanoid} and the token of the link, signed in as that wallet.)`,
      "If you did not expect this invite, ignore this e-mail or decline it."
    ].join("\n")
  }
}
