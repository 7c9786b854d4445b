/**
 * The deposits ledger: the follower's cursor and lease, the deposits it read, and their state changes with the events
 * announcing them, each one atomic step.
 */
import { Context, type Effect, type Option } from "effect"
import type { BlockCursor } from "../chain/BlockCursor.ts"
import type { DepositId, TeamId } from "../Ids.ts"
import type { Deposit, DepositState } from "./Deposit.ts"

/** Which deposits to list: a team's, newest first (block, then log index, descending). */
export interface DepositQuery {
  readonly team: TeamId
  /** Only deposits before this place in the order: the next page's start. */
  readonly after?: { readonly block_number: number; readonly log_index: number } | undefined
  readonly limit: number
}

/**
 * The deposits ledger. Implementations must:
 * - `follow`: lease the follower `name` to one holder at a time across processes (a conditional write);
 * - `advance`: only for the holder, write the deposits, then the cursor (a holder that dies between the two reads the
 *   deposits again, which changes nothing); a deposit already known stays as it is, unless it was `reorged` or read
 *   from another block while `pending` (then it is pending again, as read now);
 * - `transition`: move a deposit only from `from`, in one step.
 */
export class DepositLedger extends Context.Service<
  DepositLedger,
  {
    /**
     * Takes or keeps the follower `name` for `holder` until `until` (epoch ms) when free at `now`: its cursor (`None`
     * inside when it never advanced), or `None` when another holds it.
     */
    readonly follow: (
      name: string,
      holder: string,
      now: number,
      until: number
    ) => Effect.Effect<Option.Option<Option.Option<BlockCursor>>>
    /** Gives the follower up. */
    readonly unfollow: (name: string, holder: string) => Effect.Effect<void>
    /** Moves the cursor to `to` and records `deposits` (read up to it), for the holder; `false` if it lost the lease. */
    readonly advance: (
      name: string,
      holder: string,
      to: BlockCursor,
      deposits: ReadonlyArray<Deposit>
    ) => Effect.Effect<boolean>
    /** Deposits `pending`, and those `confirmed` from block `fromBlock` on (still within the reorg window), oldest first. */
    readonly withinReorgWindow: (fromBlock: number) => Effect.Effect<ReadonlyArray<Deposit>>
    /** Moves a deposit from `from` to `to` (at `updatedAt`); `false` when it was not in `from`. */
    readonly transition: (
      id: DepositId,
      from: DepositState,
      to: DepositState,
      updatedAt: string
    ) => Effect.Effect<boolean>
    readonly list: (query: DepositQuery) => Effect.Effect<ReadonlyArray<Deposit>>
  }
>()("@svc/domain/deposit/DepositLedger") {}
