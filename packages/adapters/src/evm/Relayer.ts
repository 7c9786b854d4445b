/**
 * The relayer: a pool of funded keys that send the service's transactions and pay their gas (DESIGN §6).
 *
 * - **Keys shared by processes** (docs/decisions/0060). Any number of processes share the pool's keys. A key's nonce
 *   sequence is held by one sender at a time through the journal's `send` lease, taken for one send (allocate, sign,
 *   journal, broadcast: milliseconds) and given back; a send tries the keys in turn and waits briefly when every one
 *   is taken. No process owns a key, so no request waits on a process that has none, and a sender that dies holding
 *   a lease blocks its key for `sendLeaseMillis` at most. One process at a time follows a key's transactions (the
 *   `monitor` lease).
 * - **Journal before broadcast.** Every transaction is signed, written to the `TransactionJournal`, and only then sent.
 *   Whatever happens next (a lost answer, a node that drops it, a crash), the journal holds the bytes to send again.
 * - **Nonces.** Allocated under the key's lease (and, in the process, a one-permit semaphore) that covers only
 *   allocation, signing, journaling and `eth_sendRawTransaction`, so gas estimation and receipt waiting stay
 *   concurrent. A nonce is one past the journal's highest nonce of the key that did not fail (another process's sends
 *   are there), and at least the node's pending count (read at start, after a failed send or `forgetNonce`, then
 *   counted on), so a transaction the node lost keeps its nonce until the monitor has sent it again.
 * - **Sent is not done.** A monitor follows every unfinished journaled transaction: one the node does not know is
 *   broadcast again (the same bytes); one still pending after `replaceAfterMillis`, or priced below the latest base
 *   fee, is replaced (same nonce, calldata and gas; both fees raised by at least 12.5 %, never above
 *   `maxFeePerGas`); a nonce the chain has passed without any of its versions being mined is reported and marked
 *   failed. Whichever version is mined is the one `receipt` answers. The monitor follows the chain on a block cursor
 *   (`checkCursor`, as the deposit follower does): a transaction mined since its last pass, or within
 *   `reorgWindowBlocks` blocks of a reorganisation under the cursor, that the chain no longer holds is in flight again
 *   and sent again: its signed request's salt is still unspent there, so it executes once more on the canonical chain.
 */

import { randomUUID } from "node:crypto"
import {
  type BlockCursor,
  ChainUnavailable,
  checkCursor,
  type JournaledTransaction,
  type RelayerHealth,
  type TransactionJournal,
  type TransactionStatus
} from "@svc/domain/chain"
import { repeatQuietly } from "@svc/domain/Worker"
import { Cause, Clock, Deferred, Duration, Effect, Metric, Option, Ref, type Scope, Semaphore } from "effect"
import {
  type Address,
  type Hash,
  type Hex,
  hexToBigInt,
  keccak256,
  type PrivateKeyAccount,
  type PublicClient,
  type TransactionReceipt,
  toHex
} from "viem"
import { nothingSent, readError } from "./ChainRevert.ts"
import { processJournal } from "./ProcessJournal.ts"

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
}

/**
 * How long a key's `send` lease is taken for: a sender that dies holding it blocks the key this long at most. Well
 * above one send (an RPC call bounded by `RPC_TIMEOUT_MS`); a live sender gives it back at once.
 */
export const sendLeaseMillis = 10_000

/** Transactions seen mined that a reorganisation took out of the chain (sent again, or found in a later block). */
export const transactionsReorganised = Metric.counter("svc_transactions_reorganised_total", {
  description: "Relayer transactions seen mined that a reorganisation took out of the chain",
  incremental: true
})

/** A failure whose sending side is unknown happened before any send (fees, nonce, signing). */
const unsentUnlessKnown = (error: ChainUnavailable) =>
  error.nothingSent === undefined ? new ChainUnavailable({ reason: error.reason, nothingSent: true }) : error

/** Sends transactions from a pool of keys with correct, gap-free nonces, and sees each through to a block. */
export interface Relayer {
  /** The pool's first key: the account gas is estimated from (every key of the pool holds the same rights). */
  readonly address: Address
  /** Every key of the pool. */
  readonly addresses: ReadonlyArray<Address>
  /**
   * Journals and sends; answers the hash of the version sent. Fails with `ChainUnavailable` whose `nothingSent` says
   * whether the transaction can have reached the node (when it can, the journal has it and the monitor goes on).
   */
  readonly send: (transaction: RelayedTransaction) => Effect.Effect<Hash, ChainUnavailable>
  /**
   * The receipt of whichever version of `hash`'s nonce is mined, waiting for one; `onVersion` hears of each newer
   * version sent meanwhile (a replacement with raised fees).
   */
  readonly receipt: (
    hash: Hash,
    onVersion?: ((hash: Hash) => Effect.Effect<void>) | undefined
  ) => Effect.Effect<TransactionReceipt, ChainUnavailable>
  /**
   * After the node restarted from a saved state, ours may be ahead: reads the next nonce again, and puts back in flight
   * what the journal saw mined and the chain no longer holds.
   */
  readonly forgetNonce: Effect.Effect<void>
  /** Each key's gas balance and what it has in flight. */
  readonly health: Effect.Effect<ReadonlyArray<RelayerHealth>, ChainUnavailable>
  /** One pass of the monitor now (it also runs on its own every `monitorMillis`). */
  readonly monitor: Effect.Effect<void, ChainUnavailable>
  /**
   * Runs the monitor until none of the pool's transactions is in flight, for at most `timeoutMillis`; answers
   * whether it got there (after a restart from a saved state, what was sent again is then on chain).
   */
  readonly settle: (timeoutMillis: number) => Effect.Effect<boolean>
}

/** The smallest fee a node takes as a replacement of `fee`: 12.5 % more, rounded up, and at least one more. */
export const bumped = (fee: bigint): bigint => fee + (fee * 125n + 999n) / 1000n + 1n

/** The largest of some amounts (`Math.max` takes no bigint). */
const largest = (amounts: ReadonlyArray<bigint>): bigint => {
  let result = 0n
  for (const amount of amounts) if (amount > result) result = amount
  return result
}

/** The smallest of some amounts. */
const smallest = (amounts: ReadonlyArray<bigint>): bigint => {
  let result = amounts[0] ?? 0n
  for (const amount of amounts) if (amount < result) result = amount
  return result
}

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

/** Errors a node gives for bytes it already has or has already mined: sending them again did no harm. */
const alreadyThere = (error: unknown) =>
  /already known|already imported|known transaction|nonce too low|AlreadyKnown|NonceTooLow/i.test(String(error))

/** The fees a transaction is signed with. */
interface Fees {
  readonly maxFeePerGas: bigint
  readonly maxPriorityFeePerGas: bigint
}

/** A transaction waiting for its key. */
interface Queued {
  readonly transaction: RelayedTransaction
  readonly fees: Fees
  readonly result: Deferred.Deferred<Hash, ChainUnavailable>
  /** Epoch ms: past it, the transaction gives up waiting for the key (nothing sent). */
  readonly deadline: number
  readonly retried: boolean
}

/** The longest run of sends one process makes under a key's lease before giving others a turn. */
const maxRunMillis = 1_000
const maxRunSends = 64

/** One key of the pool. */
interface KeyRelayer extends Omit<Relayer, "addresses" | "send" | "health"> {
  /** Queues the transaction for the key; answers its hash once sent (see `Relayer.send`). */
  readonly submit: (transaction: RelayedTransaction, fees: Fees) => Effect.Effect<Hash, ChainUnavailable>
  /** How many of this process's transactions wait for the key. */
  readonly waiting: () => number
  readonly health: Effect.Effect<RelayerHealth, ChainUnavailable>
}

/** One key on the chain `client` talks to, journaling into `journal`; its monitor runs for the scope's lifetime. */
const makeKeyRelayer = Effect.fnUntraced(function* (
  client: PublicClient,
  chainId: number,
  account: PrivateKeyAccount,
  journal: TransactionJournal["Service"],
  options: RelayerOptions
): Effect.fn.Return<KeyRelayer, ChainUnavailable, Scope.Scope> {
  // Over several endpoints (failover) only the last one's error is seen: an earlier one may have timed out after
  // taking the transaction, so a failure there never proves that nothing was sent.
  const failover = client.transport.type === "fallback"
  const relayer = account.address.toLowerCase() as Address
  // Names this process's taking of the key's leases.
  const holder = randomUUID()
  const scope = yield* Effect.scope
  const keyWaitMillis = options.keyWaitMillis ?? 20_000
  const lock = yield* Semaphore.make(1)
  const nextNonce = yield* Ref.make<number | undefined>(undefined)
  // Where the monitor last saw the chain (see `followReorgs`); this process's own, taken again with the lease.
  const cursor = yield* Ref.make<BlockCursor | undefined>(undefined)
  const replaceAfterMillis = options.replaceAfterMillis ?? 30_000
  const monitorMillis = options.monitorMillis ?? Math.max(client.pollingInterval, 1_000)
  const receiptTimeoutMillis = options.receiptTimeoutMillis ?? 120_000
  const reorgWindowBlocks = BigInt(options.reorgWindowBlocks ?? 64)
  const confirmations = BigInt(Math.max(1, options.confirmations ?? 1))

  const read = <A>(call: () => Promise<A>) => Effect.tryPromise({ try: call, catch: readError })

  const pendingNonce = Effect.tryPromise({
    try: () => client.getTransactionCount({ address: account.address, blockTag: "pending" }),
    catch: (error) => new ChainUnavailable({ reason: readError(error).reason, nothingSent: true })
  })

  const broadcast = (raw: Hex) =>
    Effect.tryPromise({
      // Sent once, without the transport's retries: after a timeout the node may hold it, and a retry that meets a
      // refused connection must not make that look like nothing was sent.
      try: () => client.request({ method: "eth_sendRawTransaction", params: [raw] }, { retryCount: 0 }),
      catch: (error) =>
        new ChainUnavailable({ reason: readError(error).reason, nothingSent: !failover && nothingSent(error) })
    })

  /** Signs and journals one version: a new nonce's first, or a replacement. */
  const signAndRecord = (
    transaction: Omit<JournaledTransaction, "hash" | "raw" | "status" | "createdAt" | "updatedAt" | "chainId">
  ) =>
    Effect.gen(function* () {
      const raw = yield* Effect.tryPromise({
        try: () =>
          account.signTransaction({
            ...(transaction.to === null ? {} : { to: transaction.to }),
            data: transaction.data,
            gas: transaction.gas,
            maxFeePerGas: transaction.maxFeePerGas,
            maxPriorityFeePerGas: transaction.maxPriorityFeePerGas,
            nonce: transaction.nonce,
            chainId,
            type: "eip1559"
          }),
        catch: (error) => new ChainUnavailable({ reason: readError(error).reason, nothingSent: true })
      })
      const now = yield* Clock.currentTimeMillis
      const row: JournaledTransaction = {
        ...transaction,
        hash: keccak256(raw),
        raw,
        chainId,
        status: "signed",
        createdAt: now,
        updatedAt: now
      }
      yield* journal.record(row)
      return row
    })

  const setStatus = (hash: Hash, status: TransactionStatus, block?: { number: bigint; hash: Hex }) =>
    Effect.flatMap(Clock.currentTimeMillis, (at) => journal.update(hash, { status, at, block }))

  /** Signs, journals and broadcasts one transaction on `nonce`, under the key's lease. */
  const sendOn = (nonce: number, transaction: RelayedTransaction, fees: Fees) =>
    Effect.gen(function* () {
      const row = yield* signAndRecord({
        relayer,
        nonce,
        to: transaction.to ?? null,
        data: transaction.data,
        gas: transaction.gas,
        ...fees,
        carries: transaction.carries ?? []
      })
      yield* broadcast(row.raw).pipe(
        // Refused outright: the nonce is free again. Maybe taken: the monitor sends the same bytes again.
        Effect.tapError((error) => setStatus(row.hash, error.nothingSent ? "failed" : "sent"))
      )
      yield* setStatus(row.hash, "sent")
      return row.hash as Hash
    })

  /** Transactions of this process waiting for the key, in order. */
  const queue: Array<Queued> = []
  let draining = false

  /**
   * Sends what waits, under the key's lease: taken once for a run of sends (at most `maxRunMillis` or `maxRunSends`,
   * so other processes get the key too), the next nonce read once per run (no one else can sign on the key while the
   * lease is held), and given back when nothing waits. A transaction the node refused outright is tried once more on a
   * nonce read again from the node; one that may have reached it is not (the journal has it; the monitor goes on).
   * One that waited `keyWaitMillis` for the key fails, nothing sent.
   */
  const drain: Effect.Effect<void> = Effect.gen(function* () {
    while (true) {
      const now = yield* Clock.currentTimeMillis
      for (const waiting of queue.filter((queued) => queued.deadline <= now)) {
        queue.splice(queue.indexOf(waiting), 1)
        yield* Deferred.fail(
          waiting.result,
          new ChainUnavailable({ reason: `relayer key ${account.address} stayed in use`, nothingSent: true })
        )
      }
      if (queue.length === 0) {
        draining = false
        return
      }
      if (!(yield* journal.lease(chainId, relayer, "send", holder, now, now + sendLeaseMillis))) {
        yield* Effect.sleep(Duration.millis(2 + Math.floor(Math.random() * 8)))
        continue
      }
      yield* Effect.gen(function* () {
        const runUntil = now + maxRunMillis
        let nonce: number | undefined
        for (let sent = 0; queue.length > 0 && sent < maxRunSends; sent++) {
          if ((yield* Clock.currentTimeMillis) >= runUntil) break
          const next = queue.shift() as Queued
          const exit = yield* Effect.exit(
            Effect.gen(function* () {
              if (nonce === undefined) {
                const floor = (yield* Ref.get(nextNonce)) ?? (yield* pendingNonce)
                nonce = Math.max(floor, (yield* journal.nextNonce(chainId, relayer)) ?? 0)
              }
              return { nonce, hash: yield* sendOn(nonce, next.transaction, next.fees) }
            })
          )
          if (exit._tag === "Success") {
            nonce = exit.value.nonce + 1
            yield* Ref.set(nextNonce, nonce)
            yield* Deferred.succeed(next.result, exit.value.hash)
            continue
          }
          const error = Cause.findErrorOption(exit.cause)
          const refused = Option.isSome(error) && error.value.nothingSent === true
          // Read the nonce again from the node and the journal: refused outright, it may be the nonce itself.
          nonce = undefined
          yield* Ref.set(nextNonce, undefined)
          if (refused && !next.retried) {
            queue.unshift({ ...next, retried: true })
            continue
          }
          yield* Deferred.failCause(next.result, exit.cause)
        }
      }).pipe(lock.withPermits(1), Effect.ensuring(journal.release(chainId, relayer, "send", holder)))
      // Others may be waiting for the key: a moment before taking it again.
      if (queue.length > 0) yield* Effect.sleep(Duration.millis(2 + Math.floor(Math.random() * 8)))
    }
  }).pipe(
    // Whatever ends the drain, no one is left waiting on it.
    Effect.onExit(() =>
      Effect.gen(function* () {
        draining = false
        for (const waiting of queue.splice(0)) {
          yield* Deferred.fail(
            waiting.result,
            new ChainUnavailable({ reason: "the relayer stopped", nothingSent: true })
          )
        }
      })
    )
  )

  const submit = (transaction: RelayedTransaction, fees: Fees) =>
    Effect.gen(function* () {
      const result = yield* Deferred.make<Hash, ChainUnavailable>()
      const deadline = (yield* Clock.currentTimeMillis) + keyWaitMillis
      queue.push({ transaction, fees, result, deadline, retried: false })
      if (!draining) {
        draining = true
        yield* Effect.forkIn(drain, scope)
      }
      return yield* Deferred.await(result)
    })

  /** The receipt of `hash`, or undefined while the node has none. */
  const receiptOf = (hash: Hash) =>
    Effect.tryPromise({
      try: () => client.getTransactionReceipt({ hash }),
      catch: (error) => error
    }).pipe(
      Effect.catch((error) =>
        error instanceof Error && error.name === "TransactionReceiptNotFoundError"
          ? Effect.succeed(undefined)
          : Effect.fail(readError(error))
      )
    )

  /**
   * How deep `blockNumber` is under the head `head` (the block itself counts: 1 when it is the head). Without a head
   * (one confirmation needed, so none was asked for), a mined block is deep enough.
   */
  const depthOf = (blockNumber: bigint, head: bigint | undefined) =>
    // A head read before the block was mined is the block itself.
    head === undefined ? confirmations : (head > blockNumber ? head : blockNumber) - blockNumber + 1n

  /**
   * The mined version of a nonce, if any, with its depth: recorded as `confirmed` once `confirmations` deep, else
   * `included`; the other versions as `replaced`.
   */
  const minedVersion = (versions: ReadonlyArray<JournaledTransaction>, head: bigint | undefined) =>
    Effect.gen(function* () {
      for (const version of [...versions].reverse()) {
        if (version.status === "failed") continue
        const receipt = yield* receiptOf(version.hash)
        if (receipt === undefined) continue
        const depth = depthOf(receipt.blockNumber, head)
        const status = depth >= confirmations ? "confirmed" : "included"
        if (version.status !== status || version.blockHash !== receipt.blockHash) {
          yield* setStatus(version.hash, status, { number: receipt.blockNumber, hash: receipt.blockHash })
        }
        for (const other of versions) {
          if (other.hash !== version.hash && other.status !== "replaced" && other.status !== "failed") {
            yield* setStatus(other.hash, "replaced")
          }
        }
        return { receipt, depth }
      }
      return undefined
    })

  /** Raises the fees of a nonce's newest version and sends the replacement; answers whether it did. */
  const replace = (newest: JournaledTransaction, baseFee: bigint) =>
    Effect.gen(function* () {
      const estimated = yield* read(() => client.estimateFeesPerGas())
      const tip = largest([bumped(newest.maxPriorityFeePerGas), estimated.maxPriorityFeePerGas])
      const wanted = largest([bumped(newest.maxFeePerGas), estimated.maxFeePerGas, 2n * baseFee + tip])
      const cap = options.maxFeePerGas
      if (cap !== undefined && bumped(newest.maxFeePerGas) > cap) {
        yield* Effect.logWarning(
          `transaction ${newest.hash} (nonce ${newest.nonce}) is stuck, and a replacement would pass MAX_FEE_PER_GAS`
        )
        return false
      }
      const maxFeePerGas = cap !== undefined && wanted > cap ? cap : wanted
      const replacement = yield* signAndRecord({
        relayer,
        nonce: newest.nonce,
        to: newest.to,
        data: newest.data,
        gas: newest.gas,
        maxFeePerGas,
        // A tip above the fee cap is never paid: the cap bounds it.
        maxPriorityFeePerGas: smallest([tip, maxFeePerGas]),
        carries: newest.carries
      })
      const sent = yield* Effect.exit(broadcast(replacement.raw))
      if (sent._tag === "Failure") {
        yield* setStatus(replacement.hash, "failed")
        yield* Effect.logWarning(`replacing transaction ${newest.hash} (nonce ${newest.nonce}) failed`, sent.cause)
        return false
      }
      yield* setStatus(replacement.hash, "sent")
      yield* Effect.logInfo(
        `replaced transaction ${newest.hash} (nonce ${newest.nonce}) with ${replacement.hash}, fees ${newest.maxFeePerGas} -> ${maxFeePerGas}`
      )
      return true
    })

  /**
   * Versions mined that the chain no longer holds where they were seen (a reorganisation, or a node restored from an
   * older state) are in flight again: the pass then sends them again. The monitor follows the chain on a block cursor,
   * as the deposit follower does: while the chain holds the cursor's block, only versions mined after it are read
   * again; after a reorganisation under it, or with no cursor yet, those of the last `reorgWindowBlocks` blocks.
   */
  const followReorgs = (head: { readonly number: bigint; readonly hash: Hex }) =>
    Effect.gen(function* () {
      const hashAt = (block: number) =>
        Effect.tryPromise({ try: () => client.getBlock({ blockNumber: BigInt(block) }), catch: (error) => error }).pipe(
          Effect.map((found) => found.hash ?? undefined),
          Effect.catch((error) =>
            error instanceof Error && error.name === "BlockNotFoundError"
              ? Effect.succeed(undefined)
              : Effect.fail(readError(error))
          )
        )
      const window = Number(reorgWindowBlocks)
      const stored = yield* Ref.get(cursor)
      const check = yield* checkCursor(
        stored ?? { block: Number(head.number) - window, hash: "" },
        Number(head.number),
        hashAt,
        window
      )
      const from = BigInt(Math.max(0, check.cursor.block + 1))
      for (const version of yield* journal.minedSince(chainId, relayer, from)) {
        const receipt = yield* receiptOf(version.hash)
        if (receipt?.blockHash === version.blockHash) continue
        if (receipt !== undefined) {
          yield* setStatus(version.hash, version.status, { number: receipt.blockNumber, hash: receipt.blockHash })
          continue
        }
        yield* setStatus(version.hash, "sent")
        yield* Effect.logWarning(
          `transaction ${version.hash} (nonce ${version.nonce}) was mined in block ${version.blockNumber}, which the chain no longer holds: in flight again`
        )
      }
      yield* Ref.set(cursor, { block: Number(head.number), hash: head.hash })
    })

  const monitor = Effect.gen(function* () {
    const latest = yield* read(() => client.getBlock({ blockTag: "latest" }))
    yield* followReorgs(latest)
    const open = yield* journal.unfinished(chainId, relayer)
    if (open.length === 0) return
    const minedCount = yield* read(() => client.getTransactionCount({ address: account.address, blockTag: "latest" }))
    const baseFee = latest.baseFeePerGas ?? 0n
    const now = yield* Clock.currentTimeMillis
    const nonces = [...new Set(open.map((row) => row.nonce))]
    for (const nonce of nonces) {
      const versions = yield* journal.versions(chainId, relayer, nonce)
      if ((yield* minedVersion(versions, latest.number)) !== undefined) continue
      const live = versions.filter((version) => version.status !== "failed" && version.status !== "replaced")
      // A block that held one of them was reorganised away: it is in flight again.
      for (const version of live) {
        if (version.status === "included" || version.status === "confirmed") {
          yield* setStatus(version.hash, "sent")
          yield* Metric.update(transactionsReorganised, 1)
        }
      }
      if (nonce < minedCount) {
        // The chain has passed this nonce, and none of our versions is in it: something else took it.
        for (const version of live) yield* setStatus(version.hash, "failed")
        yield* Ref.set(nextNonce, undefined)
        yield* Effect.logError(
          `nonce ${nonce} of relayer ${account.address} was taken by a transaction the journal did not see`
        )
        continue
      }
      const newest = live.at(-1)
      if (newest === undefined) continue
      const pending = yield* Effect.tryPromise({
        try: () => client.getTransaction({ hash: newest.hash }),
        catch: (error) => error
      }).pipe(
        Effect.as(true),
        Effect.catch((error) =>
          error instanceof Error && error.name === "TransactionNotFoundError"
            ? Effect.succeed(false)
            : Effect.fail(readError(error))
        )
      )
      if (!pending) {
        // The node lost it (dropped, evicted, or a send whose answer was lost): the same bytes again. A node that
        // refuses them (priced below the base fee now) gets a replacement instead.
        const resent = yield* broadcast(newest.raw).pipe(
          Effect.as(true),
          Effect.catch((error) =>
            alreadyThere(error.reason)
              ? Effect.succeed(true)
              : Effect.as(Effect.logWarning(`sending ${newest.hash} again was refused: ${error.reason}`), false)
          )
        )
        if (resent) {
          if (newest.status === "signed") yield* setStatus(newest.hash, "sent")
          yield* Effect.logInfo(`sent transaction ${newest.hash} (nonce ${nonce}) again: the node had lost it`)
          continue
        }
      }
      if (!pending || newest.maxFeePerGas < baseFee || now - newest.createdAt >= replaceAfterMillis) {
        yield* replace(newest, baseFee)
      }
    }
  }).pipe(Effect.withSpan("Relayer.monitor"))

  /**
   * Takes the chain's word for what it holds: the relayer's versions the journal saw mined at or past the chain's
   * count of its transactions are put back in flight (the monitor sends them again, in nonce order), and the next
   * nonce is read again. At start, and after the node restarted from a saved state (`forgetNonce`).
   */
  const resync = Effect.gen(function* () {
    const mined = yield* read(() => client.getTransactionCount({ address: account.address, blockTag: "latest" }))
    const reopened = yield* journal.reopenFrom(chainId, relayer, mined, yield* Clock.currentTimeMillis)
    if (reopened > 0) {
      yield* Effect.logWarning(
        `the chain lacks ${reopened} transaction(s) of relayer ${account.address} that were mined (from nonce ${mined}): sending them again`
      )
    }
    yield* Ref.set(nextNonce, undefined)
  }).pipe(lock.withPermits(1))
  yield* resync

  // One process at a time follows the key: the lease outlives a few missed passes, and is given back on the way out.
  yield* Effect.addFinalizer(() => journal.release(chainId, relayer, "monitor", holder))
  // While the chain cannot be read, the monitor backs off quietly (a line when it starts failing, one when it works).
  yield* repeatQuietly(
    `relayer monitor ${account.address}`,
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (yield* journal.lease(chainId, relayer, "monitor", holder, now, now + 3 * monitorMillis)) yield* monitor
    }),
    { every: Duration.millis(monitorMillis), maxBackoff: Duration.millis(8 * monitorMillis) }
  ).pipe(Effect.forkScoped)

  const receipt = Effect.fn("Relayer.receipt")(function* (
    hash: Hash,
    onVersion?: ((hash: Hash) => Effect.Effect<void>) | undefined
  ) {
    const row = yield* journal.byHash(hash)
    const deadline = (yield* Clock.currentTimeMillis) + receiptTimeoutMillis
    let current = hash
    while (true) {
      const versions = row === undefined ? [] : yield* journal.versions(chainId, relayer, row.nonce)
      const newest = versions.findLast((version) => version.status === "sent")
      if (onVersion !== undefined && newest !== undefined && newest.hash !== current) {
        current = newest.hash
        yield* onVersion(current)
      }
      // The head only matters past one confirmation: the usual wait costs no call for it.
      const head =
        confirmations > 1n
          ? yield* read(() => client.request({ method: "eth_blockNumber" }).then(hexToBigInt))
          : undefined
      const found =
        row === undefined
          ? yield* Effect.map(receiptOf(hash), (receipt) =>
              receipt === undefined ? undefined : { receipt, depth: depthOf(receipt.blockNumber, head) }
            )
          : yield* minedVersion(versions.length === 0 ? [row] : versions, head)
      // Answered once `confirmations` deep: until then the transaction is in flight (and may yet be reorganised away).
      if (found !== undefined && found.depth >= confirmations) return found.receipt
      if (versions.length > 0 && versions.every((version) => version.status === "failed")) {
        return yield* Effect.fail(
          new ChainUnavailable({ reason: `transaction ${hash} can no longer be mined`, nothingSent: false })
        )
      }
      if ((yield* Clock.currentTimeMillis) >= deadline) {
        return yield* Effect.fail(
          new ChainUnavailable({ reason: `transaction ${hash} was not mined in time`, nothingSent: false })
        )
      }
      yield* Effect.sleep(Duration.millis(client.pollingInterval))
    }
  })

  const health = Effect.gen(function* () {
    const balance = yield* read(() => client.getBalance({ address: account.address }))
    const nonce = yield* read(() => client.getTransactionCount({ address: account.address, blockTag: "latest" }))
    const open = yield* journal.unfinished(chainId, relayer)
    const now = yield* Clock.currentTimeMillis
    const oldest = open.reduce((min, row) => Math.min(min, row.createdAt), Number.POSITIVE_INFINITY)
    return {
      address: account.address,
      balance,
      low: balance < (options.minBalance ?? 0n),
      pending: new Set(open.map((row) => row.nonce)).size,
      nonce,
      oldestPendingMillis: open.length === 0 ? undefined : now - oldest
    } satisfies RelayerHealth
  })

  const settle = (timeoutMillis: number) =>
    Effect.gen(function* () {
      const deadline = (yield* Clock.currentTimeMillis) + timeoutMillis
      while ((yield* journal.unfinished(chainId, relayer)).length > 0) {
        if ((yield* Clock.currentTimeMillis) >= deadline) return false
        yield* monitor.pipe(Effect.ignore)
        yield* Effect.sleep(Duration.millis(client.pollingInterval))
      }
      return true
    })

  return {
    address: account.address,
    health,
    settle,
    submit,
    waiting: () => queue.length,
    receipt,
    forgetNonce: resync.pipe(
      Effect.catch((error) =>
        Effect.andThen(
          Ref.set(nextNonce, undefined),
          Effect.logWarning(`the relayer could not read the chain: ${error.reason}`)
        )
      )
    ),
    monitor
  } satisfies KeyRelayer
})

/**
 * A relayer for `accounts` (one key or several) on the chain `client` talks to; each key's monitor runs for the
 * scope's lifetime. Its journal is `options.journal`, or one of this process only.
 */
export const makeRelayer: (
  client: PublicClient,
  accounts: PrivateKeyAccount | ReadonlyArray<PrivateKeyAccount>,
  options?: RelayerOptions
) => Effect.Effect<Relayer, ChainUnavailable, Scope.Scope> = Effect.fnUntraced(function* (
  client: PublicClient,
  accounts: PrivateKeyAccount | ReadonlyArray<PrivateKeyAccount>,
  options: RelayerOptions = {}
) {
  const keys = Array.isArray(accounts)
    ? (accounts as ReadonlyArray<PrivateKeyAccount>)
    : [accounts as PrivateKeyAccount]
  const [first] = keys
  if (first === undefined) return yield* new ChainUnavailable({ reason: "the relayer has no key", nothingSent: true })
  const chainId = yield* Effect.tryPromise({ try: () => client.getChainId(), catch: readError })
  const journal = options.journal ?? processJournal()
  const members = yield* Effect.forEach(keys, (account) => makeKeyRelayer(client, chainId, account, journal, options))
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

  const send = Effect.fn("Relayer.send")(function* (transaction: RelayedTransaction) {
    const pinned = transaction.from === undefined ? undefined : byAddress.get(transaction.from.toLowerCase())
    if (transaction.from !== undefined && pinned === undefined) {
      return yield* new ChainUnavailable({
        reason: `${transaction.from} is not a key of the relayer`,
        nothingSent: true
      })
    }
    const candidates =
      pinned !== undefined ? [pinned] : transaction.affinity !== undefined ? [keyFor(transaction.affinity)] : members
    const estimated = yield* Effect.tryPromise({ try: () => client.estimateFeesPerGas(), catch: readError })
    const fees = { maxFeePerGas: estimated.maxFeePerGas, maxPriorityFeePerGas: estimated.maxPriorityFeePerGas }
    // Any key: the one with the fewest transactions waiting in this process, the keys taking turns among equals.
    const key = candidates.length === 1 ? (candidates[0] as KeyRelayer) : leastBusy(candidates)
    return yield* key.submit(transaction, fees)
  }, Effect.mapError(unsentUnlessKnown))

  const receipt = (hash: Hash, onVersion?: ((hash: Hash) => Effect.Effect<void>) | undefined) =>
    Effect.flatMap(journal.byHash(hash), (row) =>
      (byAddress.get(row?.relayer ?? "") ?? (members[0] as KeyRelayer)).receipt(hash, onVersion)
    )

  const all = <A, E>(each: (member: KeyRelayer) => Effect.Effect<A, E>) =>
    Effect.forEach(members, each, { concurrency: "unbounded" })

  return {
    address: first.address,
    addresses,
    send,
    receipt,
    forgetNonce: Effect.asVoid(all((member) => member.forgetNonce)),
    health: all((member) => member.health),
    monitor: Effect.asVoid(all((member) => member.monitor)),
    settle: (timeoutMillis) =>
      Effect.map(
        all((member) => member.settle(timeoutMillis)),
        (settled) => settled.every(Boolean)
      )
  } satisfies Relayer
})
