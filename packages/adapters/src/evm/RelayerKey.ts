/**
 * One key of the relayer's pool (see `Relayer.ts`): what a key is asked to send, how it is tuned, its shared state as
 * one record made in one place (`makeKeyState`), and the chain and journal calls its send path (`RelayerSend.ts`) and
 * its monitor (`RelayerMonitor.ts`) both make on it.
 */

import {
  type BlockCursor,
  ChainUnreachable,
  type JournaledTransaction,
  type KeyFence,
  SendOutcomeUnknown,
  type TransactionJournal,
  type TransactionStatus
} from "@svc/domain/chain"
import { type FencingToken, LeaseLost } from "@svc/domain/Lease"
import { Clock, type Deferred, Effect, Ref, type Scope, Semaphore } from "effect"
import { type Address, type Hash, type Hex, keccak256, type PrivateKeyAccount, type PublicClient } from "viem"
import { answeredByNode, nothingSent, readError } from "./ChainRevert.ts"

/** A transaction the relayer sends: gas already estimated. */
export interface RelayedTransaction {
  /** Absent for a contract deployment. */
  readonly to?: Address
  readonly data: Hex
  readonly gas: bigint
  /** What it carries, kept in the journal (e.g. `payment:<salt>`). */
  readonly carries?: ReadonlyArray<string>
  /** The key that must send it (the suite's admin, the token's owner); any key of the pool when absent. */
  readonly from?: Address | undefined
  /**
   * What it acts on (a team's account): every transaction with the same affinity goes through the same key, so its
   * nonce order is their order, and a chain that lost them (a reorganisation, a restored state) gets them again in
   * that order: a grant before the revocation that followed it, an account's creation before its first request.
   */
  readonly affinity?: string | undefined
}

/** How the relayer follows its transactions. */
export interface RelayerOptions {
  /** Where transactions are written before they are sent; a process-local journal when absent (tools, tests). */
  readonly journal?: TransactionJournal["Service"] | undefined
  /** How often the monitor looks at unfinished transactions (default: the client's polling interval, at least 1 s). */
  readonly monitorMillis?: number | undefined
  /** A transaction pending this long is replaced with raised fees (default 30 s). */
  readonly replaceAfterMillis?: number | undefined
  /** The highest fee per gas a replacement may offer (`MAX_FEE_PER_GAS`; default: no cap). */
  readonly maxFeePerGas?: bigint | undefined
  /** How long `receipt` waits for any version to be mined (default 120 s). */
  readonly receiptTimeoutMillis?: number | undefined
  /**
   * How deep a transaction's block must be before `receipt` answers (`CHAIN_CONFIRMATIONS`; 1, the default, is the
   * head itself). Until then it is `included`, and the monitor follows it.
   */
  readonly confirmations?: number | undefined
  /** Below this balance (wei) the relayer reads as low (`RELAYER_MIN_BALANCE_WEI`; default 0: never). */
  readonly minBalance?: bigint | undefined
  /** How many blocks back mined transactions are checked to be still on chain (default 64). */
  readonly reorgWindowBlocks?: number | undefined
  /** How long a send waits for a key while every key of the pool is being used by other processes (default 20 s). */
  readonly keyWaitMillis?: number | undefined
  /**
   * How long a key's `send` lease is taken for (`RELAYER_SEND_LEASE_MS`, default 10 s): a sender that dies holding it
   * blocks the key this long at most. Well above one send (an RPC call bounded by `RPC_TIMEOUT_MS`); it is renewed
   * before each nonce is signed, and a live sender gives it back at once.
   */
  readonly sendLeaseMillis?: number | undefined
}

/** The fees a transaction is signed with. */
export interface Fees {
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
}

/** A transaction waiting for its key. */
export interface Queued {
  readonly transaction: RelayedTransaction
  readonly fees: Fees
  readonly result: Deferred.Deferred<Hash, ChainUnreachable | SendOutcomeUnknown>
  /** Epoch ms: past it, the transaction gives up waiting for the key (nothing sent). */
  readonly deadline: number
  readonly retried: boolean
}

/** One key's state, shared by its send path and its monitor in this process. */
export interface KeyState {
  readonly client: PublicClient
  readonly chainId: number
  readonly account: PrivateKeyAccount
  /** The key's address in lower case, as the journal names it. */
  readonly relayer: Address
  readonly journal: TransactionJournal["Service"]
  readonly options: RelayerOptions
  /**
   * Over several endpoints (failover) only the last one's error is seen: an earlier one may have timed out after
   * taking the transaction, so a failure there never proves that nothing was sent.
   */
  readonly failover: boolean
  /** The fencing token of the key's `monitor` lease while this process holds it (decision 0090). */
  readonly monitorToken: Ref.Ref<FencingToken | undefined>
  /** The relayer's scope: the send path's drains run in it. */
  readonly scope: Scope.Scope
  /** The process's side of the key's `send` lease: one permit, for a run of sends or a resync. */
  readonly lock: Semaphore.Semaphore
  /** The next nonce as counted on since it was last read (undefined: read it again). */
  readonly nextNonce: Ref.Ref<number | undefined>
  /** Where the monitor last saw the chain (see `followReorgs`); this process's own, taken again with the lease. */
  readonly cursor: Ref.Ref<BlockCursor | undefined>
  /** Transactions of this process waiting for the key, in order. */
  readonly queue: Array<Queued>
  /** Whether a drain of `queue` is running. */
  draining: boolean
  readonly keyWaitMillis: number
  readonly sendLeaseMillis: number
  readonly replaceAfterMillis: number
  readonly monitorMillis: number
  readonly receiptTimeoutMillis: number
  readonly reorgWindowBlocks: bigint
  readonly confirmations: bigint
}

/** The state of the key `account` on the chain `client` talks to, journaling into `journal`, in the current scope. */
export const makeKeyState: (
  client: PublicClient,
  chainId: number,
  account: PrivateKeyAccount,
  journal: TransactionJournal["Service"],
  options: RelayerOptions
) => Effect.Effect<KeyState, never, Scope.Scope> = Effect.fnUntraced(function* (
  client: PublicClient,
  chainId: number,
  account: PrivateKeyAccount,
  journal: TransactionJournal["Service"],
  options: RelayerOptions
) {
  const state: KeyState = {
    client,
    chainId,
    account,
    relayer: account.address.toLowerCase() as Address,
    journal,
    options,
    failover: client.transport.type === "fallback",
    monitorToken: yield* Ref.make<FencingToken | undefined>(undefined),
    scope: yield* Effect.scope,
    lock: yield* Semaphore.make(1),
    nextNonce: yield* Ref.make<number | undefined>(undefined),
    cursor: yield* Ref.make<BlockCursor | undefined>(undefined),
    queue: [],
    draining: false,
    keyWaitMillis: options.keyWaitMillis ?? 20_000,
    sendLeaseMillis: options.sendLeaseMillis ?? 10_000,
    replaceAfterMillis: options.replaceAfterMillis ?? 30_000,
    monitorMillis: options.monitorMillis ?? Math.max(client.pollingInterval, 1_000),
    receiptTimeoutMillis: options.receiptTimeoutMillis ?? 120_000,
    reorgWindowBlocks: BigInt(options.reorgWindowBlocks ?? 64),
    confirmations: BigInt(Math.max(1, options.confirmations ?? 1))
  }
  return state
})

/** A read of the chain; its failure is `ChainUnreachable`. */
export const read = <A>(call: () => Promise<A>) => Effect.tryPromise({ try: call, catch: readError })

/** The node's count of the key's transactions, pending ones included (a failure to read it sends nothing). */
export const pendingNonce = (key: KeyState) =>
  Effect.tryPromise({
    try: () => key.client.getTransactionCount({ address: key.account.address, blockTag: "pending" }),
    catch: readError
  })

/**
 * Whether the node answered that it already holds these exact bytes (the same hash): geth and Nitro say "already
 * known", anvil "transaction already imported". Then they were sent, whoever sent them first (another sender's copy,
 * or this one's whose answer was lost).
 */
const heldByNode = (error: unknown): boolean => {
  let cause: unknown = error
  for (let depth = 0; depth < 10 && typeof cause === "object" && cause !== null; depth++) {
    const { details, message } = cause as { readonly details?: unknown; readonly message?: unknown }
    if (/already known|already imported|known transaction|AlreadyKnown/i.test(`${details} ${message}`)) return true
    cause = (cause as { readonly cause?: unknown }).cause
  }
  return false
}

/**
 * Sends a journaled version's signed bytes to the node; bytes it already holds (or mined) count as sent. Refused
 * outright (the connection refused, or the node's JSON-RPC error while it knows no transaction of that hash):
 * `ChainUnreachable`, nothing sent. Else the node may hold them: `SendOutcomeUnknown`, naming the version.
 */
export const broadcast = (
  key: KeyState,
  row: { readonly hash: Hex; readonly raw: Hex }
): Effect.Effect<void, ChainUnreachable | SendOutcomeUnknown> =>
  Effect.tryPromise({
    // Sent once, without the transport's retries: after a timeout the node may hold it, and a retry that meets a
    // refused connection must not make that look like nothing was sent.
    try: () => key.client.request({ method: "eth_sendRawTransaction", params: [row.raw] }, { retryCount: 0 }),
    catch: (error) => error
  }).pipe(
    Effect.asVoid,
    Effect.catch((error) => {
      if (heldByNode(error)) return Effect.void
      const { reason } = readError(error)
      const unknown = new SendOutcomeUnknown({ reason, transaction: row.hash })
      if (key.failover || !nothingSent(error)) return Effect.fail(unknown)
      if (!answeredByNode(error)) return Effect.fail(new ChainUnreachable({ reason }))
      // The node said no ("nonce too low" once another copy of these very bytes was mined, say): refused outright
      // only when it knows no transaction of this hash.
      return Effect.tryPromise({
        try: () => key.client.request({ method: "eth_getTransactionByHash", params: [row.hash] }),
        catch: () => unknown
      }).pipe(Effect.flatMap((found) => (found === null ? Effect.fail(new ChainUnreachable({ reason })) : Effect.void)))
    })
  )

/**
 * Signs and journals one version (a new nonce's first, or a replacement) under `fence`, the key's lease it is made
 * under: `LeaseLost` when the journal answers that another holder has that lease now (nothing journaled, so the
 * signed bytes never leave this process).
 */
export const signAndRecord = (
  key: KeyState,
  transaction: Omit<JournaledTransaction, "hash" | "raw" | "status" | "createdAt" | "updatedAt" | "chainId">,
  fence: KeyFence
) =>
  Effect.gen(function* () {
    const raw = yield* Effect.tryPromise({
      try: () =>
        key.account.signTransaction({
          ...(transaction.to === null ? {} : { to: transaction.to }),
          data: transaction.data,
          gas: transaction.gas,
          maxFeePerGas: transaction.maxFeePerGas,
          maxPriorityFeePerGas: transaction.maxPriorityFeePerGas,
          nonce: transaction.nonce,
          chainId: key.chainId,
          type: "eip1559"
        }),
      catch: readError
    })
    const now = yield* Clock.currentTimeMillis
    const row: JournaledTransaction = {
      ...transaction,
      hash: keccak256(raw),
      raw,
      chainId: key.chainId,
      status: "signed",
      createdAt: now,
      updatedAt: now
    }
    if (!(yield* key.journal.record(row, fence))) {
      return yield* new LeaseLost({ lease: `${fence.lease} of ${key.account.address}`, token: fence.token })
    }
    return row
  })

/**
 * Moves a version from the status it was read in to `to` (and the block it was seen mined in), as the transaction
 * machine allows; under `fence` for what only the holder of a key's lease decides. Answers whether it moved: `false`
 * when its status changed meanwhile or the lease is another holder's now.
 */
export const move = (
  key: KeyState,
  version: { readonly hash: Hash; readonly status: TransactionStatus },
  to: TransactionStatus,
  options: { readonly block?: { number: bigint; hash: Hex } | undefined; readonly fence?: KeyFence | undefined } = {}
) =>
  Effect.flatMap(Clock.currentTimeMillis, (at) =>
    key.journal.transition(version.hash, { from: version.status, to, at, block: options.block }, options.fence)
  )
