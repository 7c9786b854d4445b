/**
 * Removing a member from a team (SPEC §4.4, decisions 0020 and 0094): the team's last `team_admin` stays
 * (`LastAdmin`). With a chain and a team account, the member's wallet loses its authority on chain first; the account's
 * owner goes only when another admin holds `team_admin` on chain (`LastOnChainAdmin`). The removal is marked on the
 * membership before the chain is asked: a process that dies between the chain and the database leaves the mark, the
 * member's authority is then read from the chain (`TeamAccess`), and recovery finishes the removal
 * (`finishPendingRemovals`). When the chain refuses or is down before anything was sent, the mark goes and nothing
 * changes. The intents the member registered and that have not started are canceled with them.
 */
import { Clock, Duration, Effect } from "effect"
import type { SendError } from "../chain/ChainError.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { Address, WalletAddress } from "../Evm.ts"
import type { TeamId, UserId } from "../Ids.ts"
import { cancelIntentsSignedBy } from "../payment/IntentCancellation.ts"
import { type Team, teamAccountOf } from "../team/Team.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { memberEventOf } from "./MemberEvents.ts"
import { memberOf } from "./MemberOf.ts"
import type { Membership } from "./Membership.ts"
import { AuthorityNotRevoked, LastAdmin, LastOnChainAdmin } from "./MembershipErrors.ts"
import { MembershipRepository } from "./MembershipRepository.ts"
import { TeamAccess } from "./TeamAccess.ts"

/**
 * How long a removal may run before recovery takes it for one its process left: longer than a revocation's wait for its
 * key (20 s) and its receipt (120 s).
 */
export const removalGrace = Duration.minutes(3)

/**
 * Ends `wallet`'s authority on the team's `account`. Nothing can name a new owner, so the owner goes only when another
 * admin of the team can still pay on chain. Removing and blocking a member (decision 0107) both end it so.
 */
export const revokeOnChain = Effect.fn("Members.revokeOnChain")(function* (
  gateway: ChainGateway["Service"],
  team: TeamId,
  account: Address,
  user: UserId,
  wallet: WalletAddress
) {
  const notRevoked = (error: SendError) =>
    new AuthorityNotRevoked({
      team,
      wallet,
      unavailable: error._tag !== "SettlementReverted",
      reason: error.reason,
      maybeSent: error._tag === "SendOutcomeUnknown"
    })
  const owner = yield* gateway.ownerOf(account).pipe(Effect.mapError(notRevoked))
  if (owner !== undefined && owner.toLowerCase() === wallet) {
    const admins = yield* MembershipRepository.use((m) =>
      m.listTeam(team, { roles: ["team_admin"], offset: 0, limit: undefined })
    )
    const others = yield* UserRepository.use((u) =>
      u.findByIds(admins.members.filter((m) => m.user_nanoid !== user).map((m) => m.user_nanoid))
    )
    const onChain = yield* Effect.forEach(others, (other) => gateway.hasRole(account, "team_admin", other.wallet), {
      concurrency: 4
    }).pipe(Effect.mapError(notRevoked))
    if (!onChain.some((has) => has)) return yield* new LastOnChainAdmin({ team })
  }
  yield* gateway.revokeAuthority(account, [wallet]).pipe(Effect.mapError(notRevoked))
})

/**
 * The chain, then the membership: the member's authority ended on chain (with a chain and an account), under the
 * removal's mark; then the membership removed with `team.member_removed`, and the intents the member registered
 * canceled. A refusal before anything was sent clears the mark; one after (`maybeSent`) keeps it for recovery.
 */
const finishRemoval = Effect.fn("Members.finishRemoval")(function* (team: Team, membership: Membership) {
  const { team_nanoid: teamId, user_nanoid: user } = membership
  const memberships = yield* MembershipRepository
  const chain = yield* ChainGateway.present
  const account = teamAccountOf(team)
  if (chain._tag === "Some" && account !== undefined) {
    const member = yield* UserRepository.use((u) => u.findById(user))
    if (member._tag === "Some") {
      yield* memberships.markRemoval(teamId, user, yield* Clock.currentTimeMillis)
      yield* revokeOnChain(chain.value, teamId, account, user, member.value.wallet).pipe(
        Effect.tapError((error) =>
          error._tag === "AuthorityNotRevoked" && error.maybeSent === true
            ? Effect.void
            : memberships.clearRemoval(teamId, user)
        )
      )
    }
  }
  const removed = yield* memberEventOf("team.member_removed", membership, team.company_nanoid)
  yield* withEvents(memberships.remove(teamId, user), (wasMember) => (wasMember ? [removed] : []))
  // Their authority ends with them: the intents they registered and that have not started are canceled.
  yield* cancelIntentsSignedBy(teamId, user)
})

/** Removes `user` from `team` (`member.remove`), chain first (see the module comment). */
export const removeMember = Effect.fn("Teams.removeMember")(function* (caller: Caller, team: TeamId, user: UserId) {
  const grant = yield* TeamAccess.use((access) => access.authorize(caller, team, "member.remove", user))
  const membership = yield* memberOf(team, user)
  if (membership.role === "team_admin") {
    const admins = yield* MembershipRepository.use((m) =>
      m.listTeam(team, { roles: ["team_admin"], offset: 0, limit: 2 })
    )
    if (admins.total <= 1) return yield* new LastAdmin({ team })
  }
  yield* finishRemoval(grant.team, membership)
  return { team_nanoid: team, user_nanoid: user, removed: true as const }
})

/**
 * Recovery's part in removals (decision 0094): finishes up to `limit` removals begun more than `removalGrace` ago
 * (their process died between the chain and the database, or the chain's answer was lost): the chain again (a
 * revocation is idempotent), then the membership. A removal the chain refuses now has its mark cleared; one it cannot
 * answer is left for the next pass. Answers how many were finished.
 */
export const finishPendingRemovals = Effect.fn("Members.finishPendingRemovals")(function* (limit = 20) {
  const now = yield* Clock.currentTimeMillis
  const pending = yield* MembershipRepository.use((m) =>
    m.pendingRemovals(now - Duration.toMillis(removalGrace), limit)
  )
  let finished = 0
  for (const membership of pending) {
    const team = yield* TeamRepository.use((teams) => teams.findById(membership.team_nanoid))
    if (team._tag === "None") continue
    const done = yield* Effect.exit(finishRemoval(team.value, membership))
    if (done._tag === "Success") finished++
    else
      yield* Effect.logWarning(
        `the removal of ${membership.user_nanoid} from ${membership.team_nanoid} is not finished`,
        done.cause
      )
  }
  return finished
})
