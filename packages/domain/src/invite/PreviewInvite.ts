/**
 * What the link of an invite mail opens, without signing in (SPEC §4.11): the invite the token opens, whatever its
 * state, or `InviteNotFound` for a wrong token or an invite without one (the state stays hidden).
 */
import { Effect, Option } from "effect"
import type { InviteId } from "../Ids.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { displayNameOf, type User } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type InvitePreview, membershipRoleOf } from "./Invite.ts"
import { InviteNotFound, InviteRepository } from "./InviteRepository.ts"
import { nowIso } from "./InviteSteps.ts"
import { hashInviteToken } from "./InviteToken.ts"

/** The preview of the invite `token` opens. */
export const previewInvite = Effect.fn("Invites.preview")(function* (id: InviteId, token: string) {
  const invite = yield* InviteRepository.use((invites) => invites.findById(id))
  if (invite.kind === "admin" || invite.token_hash !== hashInviteToken(token)) {
    return yield* new InviteNotFound({ nanoid: id })
  }
  const team = yield* TeamRepository.use((t) => t.findById(invite.team_nanoid))
  const inviter = invite.anonymous
    ? Option.none<User>()
    : yield* UserRepository.use((u) => u.findById(invite.inviter_nanoid))
  const now = yield* nowIso
  return {
    invite_nanoid: invite.nanoid,
    kind: invite.kind,
    role: membershipRoleOf(invite.role),
    team_name: Option.match(team, { onNone: () => "", onSome: (t) => t.name }),
    inviter_name: Option.match(inviter, { onNone: () => "", onSome: displayNameOf }),
    email: invite.email,
    state: invite.state === "pending" && invite.expires_at <= now ? "expired" : invite.state,
    expires_at: invite.expires_at,
    account: invite.account
  } satisfies InvitePreview
})
