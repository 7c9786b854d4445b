/**
 * Removing a member from a team (SPEC §4.4, decision 0020): the team's last `team_admin` stays (`LastAdmin`). With a
 * chain and a team account, the member's wallet loses its authority on chain first: when the chain refuses or is down
 * the removal fails and nothing changes; the account's owner goes only when another admin holds `team_admin` on chain
 * (`LastOnChainAdmin`). The intents the member registered and that have not started are canceled with them.
 */
import { Effect } from "effect"
import type { ChainUnavailable, SettlementReverted } from "../chain/ChainError.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { Address, WalletAddress } from "../Evm.ts"
import type { TeamId, UserId } from "../Ids.ts"
import { cancelIntentsSignedBy } from "../payment/IntentCancellation.ts"
import { teamAccountOf } from "../team/Team.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { memberEventOf } from "./MemberEvents.ts"
import { memberOf } from "./MemberOf.ts"
import { AuthorityNotRevoked, LastAdmin, LastOnChainAdmin } from "./MembershipErrors.ts"
import { MembershipRepository } from "./MembershipRepository.ts"
import { TeamAccess } from "./TeamAccess.ts"

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
  const notRevoked = (error: SettlementReverted | ChainUnavailable) =>
    new AuthorityNotRevoked({ team, wallet, unavailable: error._tag === "ChainUnavailable", reason: error.reason })
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

/** Removes `user` from `team` (`member.remove`), chain first (see the module comment). */
export const removeMember = Effect.fn("Teams.removeMember")(function* (caller: Caller, team: TeamId, user: UserId) {
  const grant = yield* TeamAccess.use((access) => access.authorize(caller, team, "member.remove", user))
  const membership = yield* memberOf(team, user)
  const memberships = yield* MembershipRepository
  if (membership.role === "team_admin") {
    const admins = yield* memberships.listTeam(team, { roles: ["team_admin"], offset: 0, limit: 2 })
    if (admins.total <= 1) return yield* new LastAdmin({ team })
  }
  // Chain first: a removal the chain refused would leave a wallet that can still pay (decision 0020).
  const chain = yield* ChainGateway.present
  const account = teamAccountOf(grant.team)
  if (chain._tag === "Some" && account !== undefined) {
    const member = yield* UserRepository.use((u) => u.findById(user))
    if (member._tag === "Some") yield* revokeOnChain(chain.value, team, account, user, member.value.wallet)
  }
  const removed = yield* memberEventOf("team.member_removed", membership, grant.team.company_nanoid)
  yield* withEvents(memberships.remove(team, user), (wasMember) => (wasMember ? [removed] : []))
  // Their authority ends with them: the intents they registered and that have not started are canceled.
  yield* cancelIntentsSignedBy(team, user)
  return { team_nanoid: team, user_nanoid: user, removed: true as const }
})
