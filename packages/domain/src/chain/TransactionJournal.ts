/**
 * The transaction journal (DESIGN §6): every transaction the service signs is written here before it is broadcast,
 * with everything needed to send it again, replace it or find out what became of it. After any crash the journal says
 * what may be in flight; nothing is ever "sent, but we don't know what".
 *
 * A relayer's transactions are identified by their nonce; each nonce may have several versions (a replacement with
 * raised fees is a new version of the same nonce, same calldata). At most one version of a nonce is ever mined.
 *
 * Statuses move by the transaction machine (`TransactionMachine.ts`, decisions 0052 and 0091), each write from the
 * status read. A key's nonces are allocated under its `send` lease, and what its monitor decides (a reorganisation, a
 * replacement, a nonce lost) under its `monitor` lease: those writes name the lease's fencing token, and the journal
 * refuses them once another holder took the lease (decision 0090), so a sender paused past its lease never journals
 * a nonce another holder allocated meanwhile.
 */
import { Context, type Effect, type Option } from "effect"
import type { Address, Hex } from "viem"
import type { FencingToken, Lease } from "../Lease.ts"
import { TransactionMachine } from "./TransactionMachine.ts"

export { TransactionMachine } from "./TransactionMachine.ts"

/** Where a journaled transaction stands (the machine's states, as a schema). */
export const TransactionStatus = TransactionMachine.State
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

/** A status change, from the status read to another the machine allows: where it was seen mined, when it was. */
export interface TransactionStatusChange {
  readonly from: TransactionStatus
  readonly to: TransactionStatus
  readonly at: number
  /** Where it was seen mined, for `included` and `confirmed`; a move back to `sent` forgets the block. */
  readonly block?: { readonly number: bigint; readonly hash: Hex } | undefined
}

/** A write made under one of a key's leases: the lease and its fencing token. */
export interface KeyFence {
  readonly lease: RelayerLease
  readonly token: FencingToken
}

/**
 * The journal. Implementations keep every version of every nonce; `record` of a hash already recorded changes
 * nothing (the same bytes always hash the same). Nonces are the relayer's own: only the holder of the key's `send`
 * lease allocates them (`nextNonce` then `record`, fenced by its token).
 */
export class TransactionJournal extends Context.Service<
  TransactionJournal,
  {
    /**
     * Writes a signed transaction (status `signed` unless given), before it is broadcast, while `fence` is the current
     * token of the key's lease it names; `false` (nothing written) once another holder took that lease. Under the
     * `send` lease a version takes its nonce: `false` too while another version of that nonce is not `failed` (the
     * sender allocates a nonce once; replacements are the monitor's). Recording a hash again changes nothing and
     * answers `true`.
     */
    readonly record: (transaction: JournaledTransaction, fence: KeyFence) => Effect.Effect<boolean>
    /**
     * Moves one version from `change.from` to `change.to` (a move the transaction machine allows; another is a
     * defect), only while its status is still `from` and, when `fence` is given, while its token is the key's current
     * one; `false` (nothing written) otherwise.
     */
    readonly transition: (hash: Hex, change: TransactionStatusChange, fence?: KeyFence) => Effect.Effect<boolean>
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
    /** The unfinished versions (any relayer) whose `carries` include `label` (e.g. `salt:…`), oldest first. */
    readonly unfinishedCarrying: (chainId: number, label: string) => Effect.Effect<ReadonlyArray<JournaledTransaction>>
    /**
     * Takes or keeps the lease `lease` of a relayer's key on `chainId` until `until` (epoch ms): kept when `held` is
     * still its current token (a renewal: the same token), taken under a new, larger token when it lapsed at `now`;
     * `None` while another holder has it. The `send` lease makes one process at a time allocate, sign and journal the
     * key's next nonces; the `monitor` lease makes one follow its transactions.
     */
    readonly lease: (
      chainId: number,
      relayer: Address,
      lease: RelayerLease,
      held: FencingToken | undefined,
      now: number,
      until: number
    ) => Effect.Effect<Option.Option<Lease>>
    /** Gives the lease back, if `token` is still its current one. */
    readonly release: (
      chainId: number,
      relayer: Address,
      lease: RelayerLease,
      token: FencingToken
    ) => Effect.Effect<void>
  }
>()("@svc/domain/chain/TransactionJournal") {}
