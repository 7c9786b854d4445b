/**
 * A chain follower's place (decision 0064): the last block it read and that block's hash then. Blocks chain by hash,
 * so while the chain still holds the cursor's block with that hash, nothing under it changed, and one read tells. When
 * it does not (a reorganisation, a node restored from an older state, a failover to a node on another fork), the
 * follower reads again from `window` blocks under the lower of the cursor and the head. The deposit follower and the
 * relayer's monitor both follow the chain this way.
 */
import { Effect } from "effect"
import type { Hex } from "viem"

/** The last block a follower read, and its hash then (`""` before it read one). */
export interface BlockCursor {
  readonly block: number
  readonly hash: Hex | ""
}

/** Where a follower stands after {@link checkCursor}. */
export interface CursorCheck {
  /** The cursor to read on from: the same one, or one `window` blocks back after a reorganisation. */
  readonly cursor: BlockCursor
  /** Whether the chain no longer holds the cursor's block as it was read. */
  readonly reorged: boolean
}

/**
 * Checks `cursor` against the chain whose head is `head`, reading block hashes with `hashAt` (`undefined` for a block
 * the chain lacks): one read while the chain holds it, two after a reorganisation.
 */
export const checkCursor = <E, R>(
  cursor: BlockCursor,
  head: number,
  hashAt: (block: number) => Effect.Effect<Hex | undefined, E, R>,
  window: number
): Effect.Effect<CursorCheck, E, R> =>
  Effect.gen(function* () {
    if (cursor.hash === "") return { cursor, reorged: false }
    if (cursor.block <= head && (yield* hashAt(cursor.block)) === cursor.hash) return { cursor, reorged: false }
    const block = Math.max(-1, Math.min(cursor.block, head) - window)
    const hash = block < 0 ? "" : ((yield* hashAt(block)) ?? "")
    return { cursor: { block, hash }, reorged: true }
  })
