/**
 * What the invite use cases share: an invite's outcome and why it is closed, its events, who may manage it, what its
 * token opens, and the mail that carries a token.
 */
import { DateTime, Effect, Option } from "effect"
import { makeDomainEvent, makeUuid } from "../event/EventEnvelope.ts"
import type { InviteEventPayload } from "../event/EventPayload.ts"
import type { InviteId, TeamId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Team } from "../team/Team.ts"
import type { Caller } from "../user/Caller.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type Invite, membershipRoleOf } from "./Invite.ts"
import { InviteAnswered, type InviteClosed, InviteExpired, InviteRevoked } from "./InviteErrors.ts"
import { inviteMailOf } from "./InviteMail.ts"
import { InviteNotFound, InviteRepository } from "./InviteRepository.ts"
import type { AnswerInviteRequest } from "./InviteRequests.ts"
import { InviteSettings } from "./InviteSettings.ts"
import { hashInviteToken } from "./InviteToken.ts"

/** An invite's state after a step, as the routes answer it. */
export interface InviteOutcome {
  readonly invite_nanoid: InviteId
  readonly team_nanoid: TeamId
  readonly state: Invite["state"]
  readonly role: string
  readonly expires_at: string
}

export const outcomeOf = (invite: Invite): InviteOutcome => ({
  invite_nanoid: invite.nanoid,
  team_nanoid: invite.team_nanoid,
  state: invite.state,
  role: invite.role,
  expires_at: invite.expires_at
})

/** Now, as the invites store it. */
export const nowIso = Effect.map(DateTime.now, DateTime.formatIso)

/** `millis` from now, as the invites store it. */
export const later = (millis: number) =>
  Effect.map(DateTime.now, (now) => DateTime.formatIso(DateTime.add(now, { milliseconds: millis })))

/** Why a pending-looking invite cannot be answered at `now`, or `undefined` when it can. */
export const closedReason = (invite: Invite, now: string): InviteClosed | undefined => {
  switch (invite.state) {
    case "accepted":
    case "rejected":
      return new InviteAnswered({ nanoid: invite.nanoid, state: invite.state })
    case "revoked":
      return new InviteRevoked({ nanoid: invite.nanoid })
    case "expired":
      return new InviteExpired({ nanoid: invite.nanoid })
    case "pending":
      return invite.expires_at <= now ? new InviteExpired({ nanoid: invite.nanoid }) : undefined
  }
}

/** After a lost race: the reason the invite is no longer pending, read again. */
export const whyStale = (id: InviteId) =>
  Effect.gen(function* () {
    const again = yield* InviteRepository.use((invites) => invites.findById(id))
    return yield* closedReason(again, yield* nowIso) ?? new InviteAnswered({ nanoid: id, state: again.state })
  })

/** The `invite` payload of the invite events (SPEC §6). */
export const invitePayloadOf = (invite: Invite, status: InviteEventPayload["status"]): InviteEventPayload => ({
  nanoid: invite.nanoid,
  user_nanoid: invite.user_nanoid ?? null,
  email: invite.email,
  role: membershipRoleOf(invite.role),
  status,
  anonymous: invite.anonymous,
  invited_by: invite.inviter_nanoid,
  invited_to: invite.team_nanoid
})

/** An invite event's kind and payload. */
export interface NewInviteEvent {
  readonly type: "invite.accepted" | "invite.rejected" | "invite.expired" | "team.member_added"
  readonly data: Record<string, unknown>
}

/** The event of a step on `invite`, of its team (and company, when the team is known). */
export const inviteEventOf = (invite: Invite, team: Team | undefined, event: NewInviteEvent) =>
  makeDomainEvent({
    event_type: event.type,
    data: event.data,
    team_nanoid: invite.team_nanoid,
    ...(team === undefined ? {} : { company_nanoid: team.company_nanoid })
  })

/**
 * The invite with this id when the caller may manage its team's invites; an invite of a team the caller does not
 * manage is "not found", so another tenant learns nothing of it.
 */
export const managedInvite = Effect.fn("Invites.managed")(function* (caller: Caller, id: InviteId) {
  const invite = yield* InviteRepository.use((invites) => invites.findById(id))
  const team = yield* TeamAccess.use((access) => access.authorize(caller, invite.team_nanoid, "invites.create")).pipe(
    Effect.map(({ team }) => team),
    Effect.catchTags({
      TeamNotFound: () => Effect.fail(new InviteNotFound({ nanoid: id })),
      InsufficientPermissions: () => Effect.fail(new InviteNotFound({ nanoid: id }))
    })
  )
  return { invite, team }
})

/**
 * The invite the token opens, still answerable; a wrong token is "not found" (the state stays hidden). An admin invite
 * opens for its wallet signed in, and for nobody else (decision 0041); it was never given a token, so one sent with it
 * is a wrong token too.
 */
export const openedInvite = Effect.fn("Invites.opened")(function* (caller: Caller, body: AnswerInviteRequest) {
  const invite = yield* InviteRepository.use((invites) => invites.findById(body.invite_nanoid))
  const tokenHash =
    invite.kind === "admin"
      ? invite.account === caller.wallet && body.token === undefined
        ? invite.token_hash
        : undefined
      : body.token === undefined || (invite.kind === "manager" && invite.account !== caller.wallet)
        ? undefined
        : hashInviteToken(body.token)
  if (invite.token_hash !== tokenHash) return yield* new InviteNotFound({ nanoid: body.invite_nanoid })
  const closed = closedReason(invite, yield* nowIso)
  if (closed !== undefined) return yield* closed
  return { invite, tokenHash }
})

/** The mail that carries `token` for `invite`, from its inviter, linking to the server's public URL. */
export const inviteMailFor = Effect.fn("Invites.mailFor")(function* (invite: Invite, token: string, team: Team) {
  const inviter = yield* UserRepository.use((users) => users.findById(invite.inviter_nanoid))
  return inviteMailOf({
    id: yield* makeUuid,
    invite,
    token,
    team,
    inviter: Option.getOrUndefined(inviter),
    publicBaseUrl: (yield* InviteSettings).publicBaseUrl
  })
})
