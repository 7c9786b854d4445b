/**
 * The relayer's pool (see `Relayer.ts`): each key put together from its state (`RelayerKey.ts`), its send path
 * (`RelayerSend.ts`) and its monitor (`RelayerMonitor.ts`); which key a transaction goes through; each key's health.
 */

import {
  ChainUnreachable,
  type RelayerHealth,
  type SendOutcomeUnknown,
  type TransactionJournal
} from "@svc/domain/chain"
import { Clock, Effect, Ref, type Scope } from "effect"
import {
  type Address,
  type Hash,
  keccak256,
  type PrivateKeyAccount,
  type PublicClient,
  type TransactionReceipt,
  toHex
} from "viem"
import {
  type Fees,
  type KeyState,
  makeKeyState,
  type RelayedTransaction,
  type RelayerOptions,
  read
} from "./RelayerKey.ts"
import { drain, monitor, resync, runMonitor } from "./RelayerMonitor.ts"
import { receipt } from "./RelayerReceipt.ts"
import { submit } from "./RelayerSend.ts"

/**
 * The key of an affinity among `keys`: the one whose hash with it is highest (rendezvous hashing), the same in every
 * process whatever the order of its keys; adding or removing a key moves only the affinities of that key.
 */
export const keyOfAffinity = (affinity: string, keys: ReadonlyArray<Address>): Address => {
  let best = keys[0] as Address
  let bestScore = ""
  for (const key of keys) {
    const score = keccak256(toHex(`${affinity.toLowerCase()}:${key.toLowerCase()}`))
    if (score > bestScore) {
      best = key
      bestScore = score
    }
  }
  return best
}

/** One key of the pool (the `Relayer` of one key, with its queue). */
export interface KeyRelayer {
  readonly address: Address
  /** Queues the transaction for the key; answers its hash once sent (see `Relayer.send`). */
  readonly submit: (
    transaction: RelayedTransaction,
    fees: Fees
  ) => Effect.Effect<Hash, ChainUnreachable | SendOutcomeUnknown>
  /** How many of this process's transactions wait for the key. */
  readonly waiting: () => number
  readonly receipt: (
    hash: Hash,
    onVersion?: ((hash: Hash) => Effect.Effect<void>) | undefined
  ) => Effect.Effect<TransactionReceipt, SendOutcomeUnknown>
  readonly forgetNonce: Effect.Effect<void>
  readonly health: Effect.Effect<RelayerHealth, ChainUnreachable>
  readonly monitor: Effect.Effect<void, ChainUnreachable>
  readonly drain: (timeoutMillis: number) => Effect.Effect<boolean>
}

/** The key's gas balance and what it has in flight. */
const health = (key: KeyState) =>
  Effect.gen(function* () {
    const { account, chainId, client, journal, relayer } = key
    const balance = yield* read(() => client.getBalance({ address: account.address }))
    const nonce = yield* read(() => client.getTransactionCount({ address: account.address, blockTag: "latest" }))
    const open = yield* journal.unfinished(chainId, relayer)
    const now = yield* Clock.currentTimeMillis
    const oldest = open.reduce((min, row) => Math.min(min, row.createdAt), Number.POSITIVE_INFINITY)
    return {
      address: account.address,
      balance,
      low: balance < (key.options.minBalance ?? 0n),
      pending: new Set(open.map((row) => row.nonce)).size,
      nonce,
      oldestPendingMillis: open.length === 0 ? undefined : now - oldest
    } satisfies RelayerHealth
  })

/** One key on the chain `client` talks to, journaling into `journal`; its monitor runs for the scope's lifetime. */
export const makeKeyRelayer: (
  client: PublicClient,
  chainId: number,
  account: PrivateKeyAccount,
  journal: TransactionJournal["Service"],
  options: RelayerOptions
) => Effect.Effect<KeyRelayer, ChainUnreachable, Scope.Scope> = Effect.fnUntraced(function* (
  client: PublicClient,
  chainId: number,
  account: PrivateKeyAccount,
  journal: TransactionJournal["Service"],
  options: RelayerOptions
) {
  const key = yield* makeKeyState(client, chainId, account, journal, options)
  yield* resync(key)
  const pass = monitor(key)
  yield* runMonitor(key, pass)
  return {
    address: account.address,
    health: health(key),
    drain: (timeoutMillis) => drain(key, pass, timeoutMillis),
    submit: (transaction, fees) => submit(key, transaction, fees),
    waiting: () => key.queue.length,
    receipt: receipt(key),
    forgetNonce: resync(key).pipe(
      Effect.catch((error) =>
        Effect.andThen(
          Ref.set(key.nextNonce, undefined),
          Effect.logWarning(`the relayer could not read the chain: ${error.reason}`)
        )
      )
    ),
    monitor: pass
  } satisfies KeyRelayer
})

/** The keys of a pool, and the choice among them. */
export interface Pool {
  readonly addresses: ReadonlyArray<Address>
  /** The key of an address in lower case (as the journal names it); the pool's first key when it has none. */
  readonly member: (address: string) => KeyRelayer
  /**
   * The keys that may send `transaction`: the one it names (failing when the pool has no such key), else the key of
   * its affinity, else any.
   */
  readonly candidates: (transaction: RelayedTransaction) => Effect.Effect<ReadonlyArray<KeyRelayer>, ChainUnreachable>
  /** Any of `candidates`: the one with the fewest transactions waiting in this process, the keys taking turns among equals. */
  readonly choose: (candidates: ReadonlyArray<KeyRelayer>) => KeyRelayer
}

/** The pool of `members` (at least one). */
export const makePool = (members: ReadonlyArray<KeyRelayer>): Pool => {
  const byAddress = new Map(members.map((member) => [member.address.toLowerCase(), member]))
  const addresses = members.map((member) => member.address)
  const keyFor = (affinity: string): KeyRelayer =>
    byAddress.get(keyOfAffinity(affinity, addresses).toLowerCase()) ?? (members[0] as KeyRelayer)
  // Where the next choice among equally busy keys starts, so the keys take turns.
  let turn = 0
  const leastBusy = (candidates: ReadonlyArray<KeyRelayer>) => {
    let best = candidates[turn % candidates.length] as KeyRelayer
    for (const candidate of candidates) if (candidate.waiting() < best.waiting()) best = candidate
    turn++
    return best
  }
  return {
    addresses,
    member: (address) => byAddress.get(address) ?? (members[0] as KeyRelayer),
    candidates: (transaction) => {
      const pinned = transaction.from === undefined ? undefined : byAddress.get(transaction.from.toLowerCase())
      if (transaction.from !== undefined && pinned === undefined) {
        return Effect.fail(new ChainUnreachable({ reason: `${transaction.from} is not a key of the relayer` }))
      }
      return Effect.succeed(
        pinned !== undefined ? [pinned] : transaction.affinity !== undefined ? [keyFor(transaction.affinity)] : members
      )
    },
    choose: (candidates) => (candidates.length === 1 ? (candidates[0] as KeyRelayer) : leastBusy(candidates))
  }
}
