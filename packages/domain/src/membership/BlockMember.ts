/**
 * Blocking and unblocking a member (issue 39, decision 0107). A blocked member stays listed; they cannot be paid
 * (`MemberBlocked`) nor act for the team (`TeamAccess`). Blocking ends their authority on chain as removal does
 * (`revokeOnChain`), chain first under a mark (`blocking`), then the block with `team.member_blocked` in one unit, then
 * the intents they signed or are paid by are canceled. A process that dies between the chain and the database leaves
 * the mark, and the one recovery path (`payment/Recovery.ts`'s sweep, decision 0093) finishes the block
 * (`finishPendingBlocks`): the chain again (a revocation is idempotent), then the database. Every move of the block
 * names the state it leaves (`moveBlock`); no lease is held, so two finishers race only on that move. Unblocking lets them be paid again; it gives no role back (manager invites grant those).
 */
import { Clock, DateTime, Duration, Effect } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { TeamId, UserId } from "../Ids.ts"
import { cancelIntentsSignedBy, cancelIntentsTo } from "../payment/IntentCancellation.ts"
import { isoOf } from "../Timestamp.ts"
import { type Team, teamAccountOf } from "../team/Team.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { type BlockMemberBody, blockStateOf, type MemberBlock, type MemberBlockView } from "./MemberBlock.ts"
import { blockEventOf } from "./MemberEvents.ts"
import { memberOf } from "./MemberOf.ts"
import type { Membership } from "./Membership.ts"
import { BlockInProgress, BlockNotConfirmed, LastAdmin } from "./MembershipErrors.ts"
import { MembershipRepository } from "./MembershipRepository.ts"
import { revokeOnChain } from "./RemoveMember.ts"
import { TeamAccess } from "./TeamAccess.ts"

/**
 * How long a block may run before recovery takes it for one its process left: longer than a revocation's wait for its
 * key (20 s) and its receipt (120 s).
 */
export const blockGrace = Duration.minutes(3)

/** What the block route answers for `membership`. */
export const blockViewOf = (membership: Membership): MemberBlockView => ({
  team_nanoid: membership.team_nanoid,
  user_nanoid: membership.user_nanoid,
  blocked: membership.block !== undefined,
  blocked_since: membership.block?.since ?? null,
  reason: membership.block?.reason ?? ""
})

/** The membership as stored now (after a lost race), or as it was when it is gone. */
const reread = (membership: Membership) =>
  Effect.map(
    MembershipRepository.use((m) => m.find(membership.team_nanoid, membership.user_nanoid)),
    (found) => (found._tag === "Some" ? found.value : membership)
  )

/** A team must keep a `team_admin` who is not blocked: `LastAdmin` when `membership` is the last one. */
const keepAnAdmin = Effect.fn("Members.keepAnAdmin")(function* (membership: Membership) {
  if (membership.role !== "team_admin") return
  const admins = yield* MembershipRepository.use((m) =>
    m.listTeam(membership.team_nanoid, { roles: ["team_admin"], offset: 0, limit: undefined })
  )
  const others = admins.members.filter((m) => m.user_nanoid !== membership.user_nanoid && m.block === undefined)
  if (others.length === 0) return yield* new LastAdmin({ team: membership.team_nanoid })
})

/**
 * Blocks `membership` in `team` with `block` (see the module comment): the chain first under the mark, then the block
 * and its event; the member's intents are canceled after. A refusal of the chain lifts the mark (the member is as
 * before); a chain that does not answer leaves it, and the member blocked in the API, for recovery.
 */
const finishBlock = Effect.fn("Members.finishBlock")(function* (
  team: Team,
  membership: Membership,
  block: Omit<MemberBlock, "state">
) {
  const memberships = yield* MembershipRepository
  const { team_nanoid: teamId, user_nanoid: user } = membership
  let from = blockStateOf(membership)
  if (from === "blocked") return membership
  const chain = yield* ChainGateway.present
  const account = teamAccountOf(team)
  if (chain._tag === "Some" && account !== undefined) {
    const member = yield* UserRepository.use((u) => u.findById(user))
    if (member._tag === "Some") {
      if (from === "active") {
        yield* memberships
          .moveBlock(teamId, user, "active", { ...block, state: "blocking" })
          .pipe(Effect.catchTag("StaleState", () => Effect.fail(new BlockInProgress({ team: teamId, user }))))
        from = "blocking"
      }
      // Only a refusal (the chain answered no) lifts the mark. An outcome unknown (`maybeSent`) may have revoked; a
      // chain unreachable sent nothing, but unlike a removal the member is already blocked in the API by the mark, the
      // safe side, and recovery revokes once the chain answers (decision 0107).
      yield* revokeOnChain(chain.value, teamId, account, user, member.value.wallet).pipe(
        Effect.catchTag("AuthorityNotRevoked", (error) =>
          Effect.fail(
            error.maybeSent === true || error.unavailable
              ? new BlockNotConfirmed({ team: teamId, user, reason: error.reason })
              : error
          )
        ),
        Effect.tapError((error) =>
          error._tag === "BlockNotConfirmed"
            ? Effect.void
            : memberships.moveBlock(teamId, user, "blocking", undefined).pipe(Effect.ignore)
        )
      )
    }
  }
  const blocked: Membership = { ...membership, block: { ...block, state: "blocked" } }
  const event = yield* blockEventOf(blocked, block.by, team.company_nanoid)
  const moved = yield* withEvents(memberships.moveBlock(teamId, user, from, blocked.block), () => [event]).pipe(
    // Another process (recovery, a second request) confirmed it first, with its event: once is enough.
    Effect.catchTag("StaleState", () => reread(membership))
  )
  yield* cancelForBlockedMember(teamId, user)
  return moved
})

/**
 * What a block cancels once it is recorded: a blocked member's authority over money ends, so the intents `user` signed
 * for `team`, or that pay them, are canceled (the intent runner cancels one it already holds). The hook the pay
 * schedules join (issue 37, the payroll slice): their instalments, as payer or recipient, are canceled here too.
 */
export const cancelForBlockedMember = Effect.fn("Members.cancelForBlockedMember")(function* (
  team: TeamId,
  user: UserId
) {
  yield* cancelIntentsSignedBy(team, user)
  yield* cancelIntentsTo(team, user)
})

/** Lifts the block of `membership` (`unblock`), with its event; a member not blocked is answered as they are. */
const unblock = Effect.fn("Members.unblock")(function* (team: Team, membership: Membership, by: UserId) {
  const state = blockStateOf(membership)
  if (state === "active") return membership
  if (state === "blocking") {
    return yield* new BlockInProgress({ team: membership.team_nanoid, user: membership.user_nanoid })
  }
  const { block: _block, ...unblocked } = membership
  const event = yield* blockEventOf(unblocked, by, team.company_nanoid)
  return yield* withEvents(
    MembershipRepository.use((m) => m.moveBlock(membership.team_nanoid, membership.user_nanoid, "blocked", undefined)),
    () => [event]
  ).pipe(Effect.catchTag("StaleState", () => reread(membership)))
})

/**
 * `PUT /v2/teams/{team_nanoid}/member/{user_nanoid}/block` (`member.block`): blocks (`blocked: true`) or unblocks the
 * member. Asking for the state the member is in changes nothing and emits nothing.
 *
 * @example
 * const view = yield* setMemberBlock(admin, team, user, { blocked: true, reason: "Two accounts, one payee" })
 */
export const setMemberBlock = Effect.fn("Members.setBlock")(function* (
  caller: Caller,
  team: TeamId,
  user: UserId,
  body: BlockMemberBody
) {
  const grant = yield* TeamAccess.use((access) => access.authorize(caller, team, "member.block", user))
  const membership = yield* memberOf(team, user)
  if (!body.blocked) return blockViewOf(yield* unblock(grant.team, membership, caller.nanoid))
  if (membership.block?.state === "blocked") return blockViewOf(membership)
  yield* keepAnAdmin(membership)
  const since = membership.block?.since ?? isoOf(yield* Clock.currentTimeMillis)
  const block = { since, reason: body.reason ?? membership.block?.reason ?? "", by: caller.nanoid }
  return blockViewOf(yield* finishBlock(grant.team, membership, block))
})

/**
 * Blocks `user` in `team` for the team's `block_duplicates` setting (decision 0109), with no caller (`by: null`). A
 * member who is the team's last admin, or is blocked already, is left as they are; answers whether they were blocked.
 */
export const blockAutomatically = Effect.fn("Members.blockAutomatically")(function* (
  team: Team,
  user: UserId,
  reason: string
) {
  const found = yield* MembershipRepository.use((m) => m.find(team.nanoid, user))
  if (found._tag === "None" || found.value.block !== undefined) return false
  const lastAdmin = yield* Effect.exit(keepAnAdmin(found.value))
  if (lastAdmin._tag === "Failure") return false
  const since = DateTime.formatIso(yield* DateTime.now)
  yield* finishBlock(team, found.value, { since, reason, by: null })
  return true
})

/**
 * Recovery's part in blocks (decision 0107): finishes up to `limit` blocks marked more than `blockGrace` ago (their
 * process died between the chain and the database, or the chain's answer was lost): the chain again, then the block
 * with its event. A block the chain refuses now has its mark lifted; one it cannot answer is left for the next pass.
 * Answers how many were finished.
 */
export const finishPendingBlocks = Effect.fn("Members.finishPendingBlocks")(function* (limit = 20) {
  const before = isoOf((yield* Clock.currentTimeMillis) - Duration.toMillis(blockGrace))
  const pending = yield* MembershipRepository.use((m) => m.pendingBlocks(before, limit))
  let finished = 0
  for (const membership of pending) {
    const team = yield* TeamRepository.use((teams) => teams.findById(membership.team_nanoid))
    if (team._tag === "None" || membership.block === undefined) continue
    const { state: _state, ...block } = membership.block
    const done = yield* Effect.exit(finishBlock(team.value, membership, block))
    if (done._tag === "Success") finished++
    else
      yield* Effect.logWarning(
        `the block of ${membership.user_nanoid} in ${membership.team_nanoid} is not finished`,
        done.cause
      )
  }
  return finished
})
