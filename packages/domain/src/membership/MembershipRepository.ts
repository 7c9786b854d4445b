/**
 * The port for memberships (a user's role in a team).
 */
import { Context, type Effect, type Option, Schema } from "effect"
import type { TeamId, UserId } from "../Ids.ts"
import type { StaleState } from "../StaleState.ts"
import type { BlockState, MemberBlock } from "./MemberBlock.ts"
import type { Membership } from "./Membership.ts"
import type { Role } from "./Role.ts"

/** The user is already a member of the team. */
export class AlreadyMember extends Schema.TaggedError<AlreadyMember>()("AlreadyMember", {
  team: Schema.String,
  user: Schema.String
}) {}

/** A page of a team's members, in the order they joined, and how many match in all. */
export interface MemberPage {
  readonly members: ReadonlyArray<Membership>
  readonly total: number
}

/**
 * Memberships, unique per (team, user). `listTeam` orders by joining time then id, filters on lower-cased e-mails
 * when given, and skips/limits after filtering. `remove` is idempotent. Storage failures are defects. The events of a
 * change are the use case's, appended in the same `UnitOfWork`.
 */
export class MembershipRepository extends Context.Service<
  MembershipRepository,
  {
    readonly insert: (membership: Membership) => Effect.Effect<void, AlreadyMember>
    readonly find: (team: TeamId, user: UserId) => Effect.Effect<Option.Option<Membership>>
    readonly listByUser: (user: UserId) => Effect.Effect<ReadonlyArray<Membership>>
    readonly listTeam: (
      team: TeamId,
      options: {
        readonly emails?: ReadonlyArray<string> | undefined
        readonly roles?: ReadonlyArray<Role> | undefined
        readonly offset: number
        readonly limit: number | undefined
      }
    ) => Effect.Effect<MemberPage>
    readonly countByTeams: (teams: ReadonlyArray<TeamId>) => Effect.Effect<ReadonlyMap<TeamId, number>>
    /** Removes the membership; true when one was removed. */
    readonly remove: (team: TeamId, user: UserId) => Effect.Effect<boolean>
    /**
     * Marks the membership's removal begun at `at` (epoch ms), before the chain is asked to end its authority
     * (decision 0094); false when there is no such membership. A mark already there stays as it was.
     */
    readonly markRemoval: (team: TeamId, user: UserId, at: number) => Effect.Effect<boolean>
    /** Clears the mark of a removal the chain refused (nothing changed there). */
    readonly clearRemoval: (team: TeamId, user: UserId) => Effect.Effect<void>
    /** Up to `limit` memberships whose removal began at or before `before` (epoch ms), oldest first. */
    readonly pendingRemovals: (before: number, limit: number) => Effect.Effect<ReadonlyArray<Membership>>
    /**
     * Moves the membership's block from the state `from` to `block` (none: `active`), in one conditional write;
     * `StaleState` when the membership is not in `from` (or there is none). Answers the membership as it now is.
     */
    readonly moveBlock: (
      team: TeamId,
      user: UserId,
      from: BlockState,
      block: MemberBlock | undefined
    ) => Effect.Effect<Membership, StaleState>
    /** Up to `limit` memberships `blocking` since at or before `before` (ISO 8601), oldest first (decision 0107). */
    readonly pendingBlocks: (before: string, limit: number) => Effect.Effect<ReadonlyArray<Membership>>
  }
>()("@svc/domain/membership/MembershipRepository") {}
