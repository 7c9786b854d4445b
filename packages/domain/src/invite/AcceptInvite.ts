/**
 * Accepting an invite (SPEC §4.11): the signed-in invitee becomes a member with the invite's role, the invite's e-mail
 * recorded on the user and its prefill's names too when the user has none, in one step with the invite's change and
 * its events. A manager invite is accepted by its
 * signed grant instead (decision 0070).
 */
import { Effect, Option } from "effect"
import type { DomainEvent } from "../event/EventEnvelope.ts"
import { IdGenerator } from "../Ids.ts"
import type { Membership } from "../membership/Membership.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { IllegalTransition } from "../StateMachine.ts"
import type { Team } from "../team/Team.ts"
import { TeamNotFound } from "../team/TeamNotFound.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type Invite, membershipRoleOf } from "./Invite.ts"
import { AlreadyTeamMember } from "./InviteErrors.ts"
import { InviteRepository } from "./InviteRepository.ts"
import type { AnswerInviteRequest } from "./InviteRequests.ts"
import { inviteEventOf, invitePayloadOf, nowIso, openedInvite, outcomeOf, whyStale } from "./InviteSteps.ts"

/** The team the invite joins, while it is active; a member of it already cannot join again. */
const joinableTeam = Effect.fn("Invites.joinableTeam")(function* (invite: Invite, caller: Caller) {
  const team = yield* TeamRepository.use((t) => t.findById(invite.team_nanoid))
  if (Option.isNone(team) || team.value.status !== "active")
    return yield* new TeamNotFound({ team: invite.team_nanoid })
  if (Option.isSome(yield* MembershipRepository.use((m) => m.find(invite.team_nanoid, caller.nanoid)))) {
    return yield* new AlreadyTeamMember({ team: invite.team_nanoid })
  }
  return team.value
})

/** `invite.accepted` and `team.member_added`, for the accepted invite and its new membership. */
const acceptedEvents = (accepted: Invite, team: Team, membership: Membership) =>
  Effect.all([
    inviteEventOf(accepted, team, { type: "invite.accepted", data: invitePayloadOf(accepted, "accepted") }),
    inviteEventOf(accepted, team, {
      type: "team.member_added",
      data: {
        team_nanoid: accepted.team_nanoid,
        user_nanoid: membership.user_nanoid,
        relationship_nanoid: membership.nanoid,
        email: membership.email,
        role: membership.role,
        invite_nanoid: accepted.nanoid
      }
    })
  ])

/** Accepts the invite the token opens for the signed-in caller. */
export const acceptInvite = Effect.fn("Invites.accept")(function* (caller: Caller, body: AnswerInviteRequest) {
  const { invite, tokenHash } = yield* openedInvite(caller, body)
  // A manager invite is accepted by the admin's signed grant (PUT /v2/invites/manager), so that the role is on the
  // chain before it is a membership; its invitee may only decline (decision 0070).
  if (invite.kind === "manager") {
    return yield* new IllegalTransition({
      machine: "manager invite",
      from: invite.state,
      trigger: "be accepted by its invitee: the admin's signed grant accepts it"
    })
  }
  const team = yield* joinableTeam(invite, caller)
  const now = yield* nowIso
  // An admin invite was addressed to a wallet: the member keeps the e-mail they have, if any.
  const email =
    invite.kind === "admin"
      ? Option.match(yield* UserRepository.use((u) => u.findById(caller.nanoid)), {
          onNone: () => "",
          onSome: (u) => u.email
        })
      : invite.email
  const membership: Membership = {
    nanoid: yield* IdGenerator.use((ids) => ids.make("membership")),
    team_nanoid: invite.team_nanoid,
    user_nanoid: caller.nanoid,
    role: membershipRoleOf(invite.role),
    email,
    created_at: now
  }
  const accepted: Invite = { ...invite, state: "accepted", user_nanoid: caller.nanoid, updated_at: now }
  const events: Array<DomainEvent> = yield* acceptedEvents(accepted, team, membership)
  // The invite, the membership, the user's e-mail and names and the events in one unit: a lost race writes none.
  const stored = yield* withEvents(
    Effect.gen(function* () {
      const changed = yield* InviteRepository.use((invites) =>
        invites.transition(invite.nanoid, "pending", "accepted", {
          tokenHash,
          patch: { user_nanoid: caller.nanoid, updated_at: now }
        })
      )
      yield* MembershipRepository.use((m) => m.insert(membership))
      if (invite.kind !== "admin") yield* UserRepository.use((u) => u.setEmail(caller.nanoid, invite.email))
      // The names the inviter filled in become the member's, unless the member has a name of their own.
      const names = { first_name: invite.prefill?.first_name ?? "", last_name: invite.prefill?.last_name ?? "" }
      if (names.first_name !== "" || names.last_name !== "") {
        yield* UserRepository.use((u) => u.fillNames(caller.nanoid, names))
      }
      return changed
    }),
    () => events
  ).pipe(
    Effect.catchTags({
      StaleState: () => whyStale(invite.nanoid),
      AlreadyMember: () => Effect.fail(new AlreadyTeamMember({ team: invite.team_nanoid }))
    })
  )
  return outcomeOf(stored)
})
