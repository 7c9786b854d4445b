/**
 * The deposits ledger: the follower's cursor and lease, the deposits it read, and their state changes with the events
 * announcing them, each one atomic step.
 */
import { Context, type Effect, type Option } from "effect"
import type { BlockCursor } from "../chain/BlockCursor.ts"
import type { DepositId, TeamId } from "../Ids.ts"
import type { FencingToken, Lease } from "../Lease.ts"
import type { Deposit, DepositState } from "./Deposit.ts"

/** Which deposits to list: a team's, newest first (block, then log index, descending). */
export interface DepositQuery {
  readonly team: TeamId
  /** Only deposits before this place in the order: the next page's start. */
  readonly after?: { readonly block_number: number; readonly log_index: number } | undefined
  readonly limit: number
}

/** The follower as held: its lease, and its cursor (`None` when it never advanced). */
export interface HeldFollower {
  readonly lease: Lease
  readonly cursor: Option.Option<BlockCursor>
}

/**
 * The deposits ledger. Implementations must:
 * - `follow`: lease the follower `name` to one holder at a time across processes (a conditional write), a new
 *   fencing token for each new holder;
 * - `advance` and `transition`: write only while `token` is the follower's current token (in the same conditional
 *   write), so a follower paused past its lease changes nothing;
 * - `advance`: write the deposits, then the cursor (a holder that dies between the two reads the deposits again,
 *   which changes nothing); a deposit already known stays as it is, unless it was `reorged` or read from another
 *   block while `pending` (then it is pending again, as read now: the deposit machine's `read`);
 * - `transition`: move a deposit only from `from` to a state the deposit machine allows (another is a defect).
 */
export class DepositLedger extends Context.Service<
  DepositLedger,
  {
    /**
     * Takes or keeps the follower `name` until `until` (epoch ms): kept when `held` is its current token, taken under
     * a new one when free at `now`; `None` while another holds it.
     */
    readonly follow: (
      name: string,
      held: FencingToken | undefined,
      now: number,
      until: number
    ) => Effect.Effect<Option.Option<HeldFollower>>
    /** Gives the follower up, if `token` is still its current one. */
    readonly unfollow: (name: string, token: FencingToken) => Effect.Effect<void>
    /** Moves the cursor to `to` and records `deposits` (read up to it), for the holder; `false` if it lost the lease. */
    readonly advance: (
      name: string,
      token: FencingToken,
      to: BlockCursor,
      deposits: ReadonlyArray<Deposit>
    ) => Effect.Effect<boolean>
    /** Deposits `pending`, and those `confirmed` from block `fromBlock` on (still within the reorg window), oldest first. */
    readonly withinReorgWindow: (fromBlock: number) => Effect.Effect<ReadonlyArray<Deposit>>
    /**
     * Moves a deposit from `from` to `to` (at `updatedAt`) for the holder of the follower `name`'s `token`; `false`
     * when it was not in `from`, or the token is no longer current.
     */
    readonly transition: (
      id: DepositId,
      change: {
        readonly from: DepositState
        readonly to: DepositState
        readonly updatedAt: string
        readonly follower: string
        readonly token: FencingToken
      }
    ) => Effect.Effect<boolean>
    readonly list: (query: DepositQuery) => Effect.Effect<ReadonlyArray<Deposit>>
  }
>()("@svc/domain/deposit/DepositLedger") {}
