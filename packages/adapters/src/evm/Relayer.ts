/**
 * The relayer: a pool of funded keys that send the service's transactions and pay their gas (DESIGN §6).
 *
 * Its parts, each stating the invariants it keeps:
 * - `RelayerKey.ts`: one key's shared state (its lock, next nonce, block cursor and queue), one record made in one
 *   place, and the chain and journal calls made on it.
 * - `RelayerSend.ts`: the send path, under the key's `send` lease (keys shared by processes, journal before broadcast,
 *   nonces).
 * - `RelayerMonitor.ts`: the monitor, under the key's `monitor` lease (sent is not done: sent again, replaced, followed
 *   through reorganisations); `RelayerReceipt.ts`: which version is mined, and `receipt`.
 * - `RelayerPool.ts`: each key put together, which key a transaction goes through, and each key's health.
 */

import { ChainUnreachable, type RelayerHealth, type SendOutcomeUnknown } from "@svc/domain/chain"
import { Effect, type Scope } from "effect"
import type { Address, Hash, PrivateKeyAccount, PublicClient, TransactionReceipt } from "viem"
import { readError } from "./ChainRevert.ts"
import { processJournal } from "./ProcessJournal.ts"
import type { RelayedTransaction, RelayerOptions } from "./RelayerKey.ts"
import { type KeyRelayer, makeKeyRelayer, makePool } from "./RelayerPool.ts"

export type { RelayedTransaction, RelayerOptions } from "./RelayerKey.ts"
export { bumped, transactionsReorganised } from "./RelayerMonitor.ts"
export { keyOfAffinity } from "./RelayerPool.ts"

/** Sends transactions from a pool of keys with correct, gap-free nonces, and sees each through to a block. */
export interface Relayer {
  /** The pool's first key: the account gas is estimated from (every key of the pool holds the same rights). */
  readonly address: Address
  /** Every key of the pool. */
  readonly addresses: ReadonlyArray<Address>
  /** How deep a transaction's block must be before it is final (`CHAIN_CONFIRMATIONS`). */
  readonly confirmations: bigint
  /**
   * Journals and sends; answers the hash of the version sent. Fails with `ChainUnreachable` when nothing can have
   * reached the node, `SendOutcomeUnknown` when it may have (the journal has it, and the monitor goes on).
   */
  readonly send: (transaction: RelayedTransaction) => Effect.Effect<Hash, ChainUnreachable | SendOutcomeUnknown>
  /**
   * The receipt of whichever version of `hash`'s nonce is mined, waiting for one; `onVersion` hears of each newer
   * version sent meanwhile (a replacement with raised fees). Anything else that ends the wait is `SendOutcomeUnknown`.
   */
  readonly receipt: (
    hash: Hash,
    onVersion?: ((hash: Hash) => Effect.Effect<void>) | undefined
  ) => Effect.Effect<TransactionReceipt, SendOutcomeUnknown>
  /** The newest version of a journaled transaction carrying `label` (e.g. `salt:…`) that may still be mined. */
  readonly inFlightCarrying: (label: string) => Effect.Effect<Hash | undefined>
  /**
   * After the node restarted from a saved state, ours may be ahead: reads the next nonce again, and puts back in flight
   * what the journal saw mined and the chain no longer holds.
   */
  readonly forgetNonce: Effect.Effect<void>
  /** Each key's gas balance and what it has in flight. */
  readonly health: Effect.Effect<ReadonlyArray<RelayerHealth>, ChainUnreachable>
  /** One pass of the monitor now (it also runs on its own every `monitorMillis`). */
  readonly monitor: Effect.Effect<void, ChainUnreachable>
  /**
   * Runs the monitor until none of the pool's transactions is in flight, for at most `timeoutMillis`; answers
   * whether it got there (after a restart from a saved state, what was sent again is then on chain).
   */
  readonly drain: (timeoutMillis: number) => Effect.Effect<boolean>
}

/**
 * A relayer for `accounts` (one key or several) on the chain `client` talks to; each key's monitor runs for the
 * scope's lifetime. Its journal is `options.journal`, or one of this process only.
 */
export const makeRelayer: (
  client: PublicClient,
  accounts: PrivateKeyAccount | ReadonlyArray<PrivateKeyAccount>,
  options?: RelayerOptions
) => Effect.Effect<Relayer, ChainUnreachable, Scope.Scope> = Effect.fnUntraced(function* (
  client: PublicClient,
  accounts: PrivateKeyAccount | ReadonlyArray<PrivateKeyAccount>,
  options: RelayerOptions = {}
) {
  const keys = Array.isArray(accounts)
    ? (accounts as ReadonlyArray<PrivateKeyAccount>)
    : [accounts as PrivateKeyAccount]
  const [first] = keys
  if (first === undefined) return yield* new ChainUnreachable({ reason: "the relayer has no key" })
  const chainId = yield* Effect.tryPromise({ try: () => client.getChainId(), catch: readError })
  const journal = options.journal ?? processJournal()
  const members = yield* Effect.forEach(keys, (account) => makeKeyRelayer(client, chainId, account, journal, options))
  const pool = makePool(members)

  const send = Effect.fn("Relayer.send")(function* (transaction: RelayedTransaction) {
    const candidates = yield* pool.candidates(transaction)
    const estimated = yield* Effect.tryPromise({ try: () => client.estimateFeesPerGas(), catch: readError })
    const fees = { maxFeePerGas: estimated.maxFeePerGas, maxPriorityFeePerGas: estimated.maxPriorityFeePerGas }
    // Any key: the one with the fewest transactions waiting in this process, the keys taking turns among equals.
    return yield* pool.choose(candidates).submit(transaction, fees)
  })

  const receipt = (hash: Hash, onVersion?: ((hash: Hash) => Effect.Effect<void>) | undefined) =>
    Effect.flatMap(journal.byHash(hash), (row) => pool.member(row?.relayer ?? "").receipt(hash, onVersion))

  const all = <A, E>(each: (member: KeyRelayer) => Effect.Effect<A, E>) =>
    Effect.forEach(members, each, { concurrency: "unbounded" })

  return {
    address: first.address,
    addresses: pool.addresses,
    confirmations: BigInt(Math.max(1, options.confirmations ?? 1)),
    send,
    receipt,
    inFlightCarrying: (label) =>
      Effect.map(journal.unfinishedCarrying(chainId, label), (versions) => versions.at(-1)?.hash as Hash | undefined),
    forgetNonce: Effect.asVoid(all((member) => member.forgetNonce)),
    health: all((member) => member.health),
    monitor: Effect.asVoid(all((member) => member.monitor)),
    drain: (timeoutMillis) =>
      Effect.map(
        all((member) => member.drain(timeoutMillis)),
        (settled) => settled.every(Boolean)
      )
  } satisfies Relayer
})
