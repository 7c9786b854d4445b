/**
 * Who may act on a team: the caller's membership in it decides (docs/authorization.md). Every team use case asks
 * here first, with the caller it was given. A member whose removal began (decision 0094) has only the authority the
 * chain still shows: a manager whose role the chain revoked already is refused, whatever the membership still says.
 * A blocked member, or one being blocked (decision 0107), may only read the team and their own summary and settings
 * until unblocked.
 */
import { Context, Effect, Layer, Option } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { TeamId, UserId } from "../Ids.ts"
import { type Team, teamAccountOf } from "../team/Team.ts"
import { TeamNotFound } from "../team/TeamNotFound.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import type { Caller } from "../user/Caller.ts"
import type { Membership } from "./Membership.ts"
import { InsufficientPermissions } from "./MembershipErrors.ts"
import { MembershipRepository } from "./MembershipRepository.ts"
import { type Action, isAllowed } from "./Permission.ts"
import { ManagerRole } from "./Role.ts"

/**
 * Whether the chain still gives `caller` the authority of `membership` on `team`'s account: the ownership, or its
 * manager role there. Fails closed: no chain, no account, a role the chain does not hold, or a chain that cannot be
 * read, all answer no.
 */
const authorityOnChain = (
  chain: Option.Option<ChainGateway["Service"]>,
  team: Team,
  membership: Membership,
  caller: Caller
) => {
  const account = teamAccountOf(team)
  if (Option.isNone(chain) || account === undefined) return Effect.succeed(false)
  if (!(ManagerRole.literals as ReadonlyArray<string>).includes(membership.role)) return Effect.succeed(false)
  return Effect.gen(function* () {
    const owner = yield* chain.value.ownerOf(account)
    if (owner !== undefined && owner.toLowerCase() === caller.wallet.toLowerCase()) return true
    return yield* chain.value.hasRole(account, membership.role, caller.wallet)
  }).pipe(Effect.orElseSucceed(() => false))
}

/** What a blocked member may still do: see the team, and what it says about them. */
const whileBlocked = (action: Action, aboutSelf: boolean): boolean =>
  action === "team.read" || (aboutSelf && (action === "member.summary" || action === "member.settings.read"))

/** What an allowed action may rely on: the active team and the caller's membership in it. */
export interface TeamGrant {
  readonly team: Team
  readonly membership: Membership
}

/**
 * The access check of team actions. `authorize` answers the team and the caller's membership when the caller may take
 * `action` there: an unknown or deleted team is `TeamNotFound`; a team the caller is not a member of, or a role
 * without the permission, `InsufficientPermissions`. `subject` is the user the action is about, when there is one
 * (self-service actions).
 */
export class TeamAccess extends Context.Service<
  TeamAccess,
  {
    readonly authorize: (
      caller: Caller,
      team: TeamId,
      action: Action,
      subject?: UserId
    ) => Effect.Effect<TeamGrant, TeamNotFound | InsufficientPermissions>
  }
>()("@svc/domain/membership/TeamAccess") {
  /** On the team and membership repositories. */
  static readonly layer = Layer.effect(
    TeamAccess,
    Effect.gen(function* () {
      const teams = yield* TeamRepository
      const memberships = yield* MembershipRepository
      const chain = yield* ChainGateway.present
      return TeamAccess.of({
        authorize: Effect.fn("TeamAccess.authorize")(function* (caller, team, action, subject) {
          const found = yield* teams.findById(team)
          if (found._tag === "None" || found.value.status !== "active") return yield* new TeamNotFound({ team })
          const membership = yield* memberships.find(team, caller.nanoid)
          if (membership._tag === "None") {
            return yield* new InsufficientPermissions({ message: "You are not a member of this team" })
          }
          const aboutSelf = subject === caller.nanoid
          if (!isAllowed(membership.value.role, action, aboutSelf)) {
            return yield* new InsufficientPermissions({})
          }
          if (membership.value.block !== undefined && !whileBlocked(action, aboutSelf)) {
            return yield* new InsufficientPermissions({ message: "You are blocked in this team" })
          }
          if (
            membership.value.removal_since !== undefined &&
            !(yield* authorityOnChain(chain, found.value, membership.value, caller))
          ) {
            return yield* new InsufficientPermissions({ message: "Your removal from this team is being completed" })
          }
          return { team: found.value, membership: membership.value }
        })
      })
    })
  )
}
