/**
 * After a manager grant executed on chain: each still-pending invite it covers is accepted, and its wallet's user
 * (created if new) becomes a member with the role, with `invite.accepted` and `team.member_added`, each in one step.
 * Run again on every replay, so an execution recorded by a process that died before this completes here.
 */
import { DateTime, Effect, Option } from "effect"
import type { IssuedRoles } from "../eip712/IssuedRequestStore.ts"
import { makeDomainEvent } from "../event/EventEnvelope.ts"
import { IdGenerator, type InviteId } from "../Ids.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import { newUser, type User } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type Invite, membershipRoleOf } from "./Invite.ts"
import { InviteRepository } from "./InviteRepository.ts"

/** The user of the invite's wallet, created (with the invite's e-mail) when the wallet is new. */
const granteeOf = Effect.fn("ManagerInvites.granteeOf")(function* (
  invite: Invite,
  wallet: NonNullable<Invite["account"]>,
  now: string
) {
  const users = yield* UserRepository
  if (Option.isNone(yield* users.findByWallet(wallet))) {
    const nanoid = yield* IdGenerator.use((ids) => ids.make("user"))
    const created = newUser({ nanoid, wallet, email: invite.email, created_at: now })
    yield* users.insert(created).pipe(Effect.catchTag("WalletTaken", () => Effect.void))
  }
  return yield* users.findByWallet(wallet)
})

/** `invite.accepted`, and `team.member_added` unless the user already holds the role. */
const grantEvents = (
  accepted: Invite,
  user: User,
  role: ReturnType<typeof membershipRoleOf>,
  membership: string,
  added: boolean
) => {
  const scope = {
    team_nanoid: accepted.team_nanoid,
    ...(accepted.company_nanoid === undefined ? {} : { company_nanoid: accepted.company_nanoid })
  }
  const common = { user_nanoid: user.nanoid, email: accepted.email, role }
  return Effect.all([
    makeDomainEvent({
      ...scope,
      event_type: "invite.accepted",
      data: {
        nanoid: accepted.nanoid,
        ...common,
        status: "accepted",
        anonymous: false,
        invited_by: accepted.inviter_nanoid,
        invited_to: accepted.team_nanoid
      }
    }),
    ...(added
      ? [
          makeDomainEvent({
            ...scope,
            event_type: "team.member_added",
            data: {
              team_nanoid: accepted.team_nanoid,
              ...common,
              relationship_nanoid: membership,
              invite_nanoid: accepted.nanoid
            }
          })
        ]
      : [])
  ])
}

/** Accepts one invite of the grant, when it is still pending. */
const acceptGranted = Effect.fn("ManagerInvites.acceptGranted")(function* (id: InviteId) {
  const invites = yield* InviteRepository
  const invite = yield* invites.findById(id).pipe(Effect.option)
  if (Option.isNone(invite) || invite.value.state !== "pending" || invite.value.account === undefined) return
  const now = DateTime.formatIso(yield* DateTime.now)
  const user = yield* granteeOf(invite.value, invite.value.account, now)
  if (Option.isNone(user)) return
  const role = membershipRoleOf(invite.value.role)
  const member = yield* MembershipRepository.use((m) => m.find(invite.value.team_nanoid, user.value.nanoid))
  // Already a member with this role: the grant only brought it on chain, so the membership stays as it is.
  const holdsRole = Option.isSome(member) && member.value.role === role
  const accepted: Invite = { ...invite.value, state: "accepted", user_nanoid: user.value.nanoid, updated_at: now }
  const membership = {
    nanoid: yield* IdGenerator.use((ids) => ids.make("membership")),
    team_nanoid: invite.value.team_nanoid,
    user_nanoid: user.value.nanoid,
    role,
    email: invite.value.email,
    created_at: now
  }
  const events = yield* grantEvents(accepted, user.value, role, membership.nanoid, !holdsRole)
  const patch = { user_nanoid: user.value.nanoid, updated_at: now }
  // The invite, the membership, the user's e-mail and the events in one unit. Another replay may have accepted it
  // first, or the wallet joined meanwhile: then the unit writes nothing, and there is nothing to do.
  yield* withEvents(
    Effect.gen(function* () {
      yield* invites.transition(id, "pending", "accepted", { patch })
      if (holdsRole) return
      yield* MembershipRepository.use((m) => m.insert(membership))
      if (user.value.email === "") yield* UserRepository.use((u) => u.setEmail(user.value.nanoid, invite.value.email))
    }),
    () => events
  ).pipe(Effect.ignore)
})

/** Accepts every still-pending invite of the executed grant `issued`. */
export const acceptGrantedInvites = Effect.fn("ManagerInvites.acceptGrantedInvites")(function* (issued: IssuedRoles) {
  for (const id of issued.request.invites) yield* acceptGranted(id)
})
