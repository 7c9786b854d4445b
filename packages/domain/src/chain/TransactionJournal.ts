/**
 * The transaction journal (DESIGN §6): every transaction the service signs is written here before it is broadcast,
 * with everything needed to send it again, replace it or find out what became of it. After any crash the journal says
 * what may be in flight; nothing is ever "sent, but we don't know what".
 *
 * A relayer's transactions are identified by their nonce; each nonce may have several versions (a replacement with
 * raised fees is a new version of the same nonce, same calldata). At most one version of a nonce is ever mined.
 *
 * Statuses (docs/decisions/0052):
 * - `signed`: written, not yet handed to a node (a crash here leaves bytes that may or may not have gone out);
 * - `sent`: a node took it (or may have: the send's answer was lost), not seen in a block yet;
 * - `included`: seen in block `blockNumber` (`blockHash`), fewer than the required confirmations deep;
 * - `confirmed`: the required confirmations deep: final for the service;
 * - `replaced`: another version of its nonce superseded it (fees raised) or was mined instead;
 * - `failed`: it can never be mined (its nonce was taken by a transaction the journal did not see).
 */
import { Context, type Effect, Schema } from "effect"
import type { Address, Hex } from "viem"

/** Where a journaled transaction stands. */
export const TransactionStatus = Schema.Literals(["signed", "sent", "included", "confirmed", "replaced", "failed"])
export type TransactionStatus = typeof TransactionStatus.Type

/** The statuses a transaction can still leave on its own: the monitor follows these. */
export const unfinishedStatuses: ReadonlyArray<TransactionStatus> = ["signed", "sent", "included"]

/** The leases a relayer's key has (docs/decisions/0060): who sends with it, and who follows its transactions. */
export type RelayerLease = "send" | "monitor"

/** One signed version of a relayer's transaction. */
export interface JournaledTransaction {
  readonly hash: Hex
  readonly chainId: number
  /** The relayer that signed it, in lower case. */
  readonly relayer: Address
  readonly nonce: number
  /** `null` for a contract deployment. */
  readonly to: Address | null
  readonly data: Hex
  readonly gas: bigint
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
  /** The signed bytes, as broadcast: sending them again is always safe. */
  readonly raw: Hex
  /** What it carries, for people and for recovery: e.g. `payment:<salt>`, `createAccount:<account>`. */
  readonly carries: ReadonlyArray<string>
  readonly status: TransactionStatus
  /** Epoch ms. */
  readonly createdAt: number
  readonly updatedAt: number
  /** Set once it was seen in a block (`included`, `confirmed`). */
  readonly blockNumber?: bigint | undefined
  readonly blockHash?: Hex | undefined
}

/** A status change: where it was seen mined, for `included` and `confirmed`. */
export interface TransactionStatusChange {
  readonly status: TransactionStatus
  readonly at: number
  readonly block?: { readonly number: bigint; readonly hash: Hex } | undefined
}

/**
 * The journal. Implementations keep every version of every nonce; `record` of a hash already recorded changes
 * nothing (the same bytes always hash the same). Nonces are the relayer's own: only the process that holds the
 * relayer's key lease allocates them (`nextNonce` then `record`).
 */
export class TransactionJournal extends Context.Service<
  TransactionJournal,
  {
    /** Writes a signed transaction (status `signed` unless given), before it is broadcast. */
    readonly record: (transaction: JournaledTransaction) => Effect.Effect<void>
    /** Moves one version to `change.status`. */
    readonly update: (hash: Hex, change: TransactionStatusChange) => Effect.Effect<void>
    /**
     * One more than the highest nonce among the relayer's versions on `chainId` that are not `failed`; `undefined`
     * when it has none. The sender takes the larger of this and the node's pending count: another process's sends
     * with the same key are here before the node may have seen them, and one the node lost (dropped, or a restored
     * chain that is behind) still holds its nonce until the monitor has sent it again.
     */
    readonly nextNonce: (chainId: number, relayer: Address) => Effect.Effect<number | undefined>
    /**
     * The relayer's versions whose status is one of `unfinishedStatuses`, by nonce then age: what the monitor
     * follows.
     */
    readonly unfinished: (chainId: number, relayer: Address) => Effect.Effect<ReadonlyArray<JournaledTransaction>>
    /** Every version of one nonce, oldest first. */
    readonly versions: (
      chainId: number,
      relayer: Address,
      nonce: number
    ) => Effect.Effect<ReadonlyArray<JournaledTransaction>>
    /**
     * Puts back in flight (`sent`, block forgotten) the relayer's mined versions (`included`, `confirmed`) whose nonce
     * is `fromNonce` or more: the chain has fewer of the relayer's transactions than the journal saw mined (a node
     * restored from an older state, or a reorganisation deeper than the confirmations). The monitor then sends their
     * bytes again, in nonce order. Answers how many it reopened.
     */
    readonly reopenFrom: (chainId: number, relayer: Address, fromNonce: number, at: number) => Effect.Effect<number>
    /**
     * The relayer's versions seen mined (`included`, `confirmed`) in block `fromBlock` or later, by block: what the
     * monitor checks is still on the canonical chain.
     */
    readonly minedSince: (
      chainId: number,
      relayer: Address,
      fromBlock: bigint
    ) => Effect.Effect<ReadonlyArray<JournaledTransaction>>
    /** One version by its hash. */
    readonly byHash: (hash: Hex) => Effect.Effect<JournaledTransaction | undefined>
    /**
     * Takes the lease `lease` of a relayer's key on `chainId` for `holder` until `until` (epoch ms), when it is free
     * at `now` or already `holder`'s; answers whether `holder` now holds it. The `send` lease makes one process at a
     * time allocate, sign and journal the key's next nonce; the `monitor` lease makes one follow its transactions.
     */
    readonly lease: (
      chainId: number,
      relayer: Address,
      lease: RelayerLease,
      holder: string,
      now: number,
      until: number
    ) => Effect.Effect<boolean>
    /** Gives the lease back, if `holder` still holds it. */
    readonly release: (chainId: number, relayer: Address, lease: RelayerLease, holder: string) => Effect.Effect<void>
  }
>()("@svc/domain/chain/TransactionJournal") {}
