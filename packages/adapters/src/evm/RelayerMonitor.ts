/**
 * The relayer's monitor (see `Relayer.ts`): it follows a key's journaled transactions until each is mined.
 *
 * - **One follower a key.** One process at a time follows a key's transactions (the journal's `monitor` lease), and
 *   what it decides (a reorganisation, a replacement, a nonce lost) is journaled under the lease's fencing token, so a
 *   monitor paused past its lease changes nothing another has decided since (decision 0090).
 * - **Sent is not done.** A monitor follows every unfinished journaled transaction: one the node does not know is
 *   broadcast again (the same bytes); one still pending after `replaceAfterMillis`, or priced below the latest base
 *   fee, is replaced (same nonce, calldata and gas; both fees raised by at least 12.5 %, never above
 *   `maxFeePerGas`); a nonce the chain has passed without any of its versions being mined is reported and marked
 *   failed. Whichever version is mined is the one `receipt` answers. The monitor follows the chain on a block cursor
 *   (`checkCursor`, as the deposit follower does): a transaction mined since its last pass, or within
 *   `reorgWindowBlocks` blocks of a reorganisation under the cursor, that the chain no longer holds is in flight again
 *   and sent again: its signed request's salt is still unspent there, so it executes once more on the canonical chain.
 */

import {
  type ChainUnreachable,
  checkCursor,
  type JournaledTransaction,
  type KeyFence,
  type TransactionStatus
} from "@svc/domain/chain"
import type { LeaseLost } from "@svc/domain/Lease"
import { repeatQuietly } from "@svc/domain/Worker"
import { Clock, Duration, Effect, Metric, Option, Ref } from "effect"
import type { Hex } from "viem"
import { readError } from "./ChainRevert.ts"
import { broadcast, type KeyState, move, read, signAndRecord } from "./RelayerKey.ts"
import { minedVersion, receiptOf } from "./RelayerReceipt.ts"

/** Transactions seen mined that a reorganisation took out of the chain (sent again, or found in a later block). */
export const transactionsReorganised = Metric.counter("svc_transactions_reorganised_total", {
  description: "Relayer transactions seen mined that a reorganisation took out of the chain",
  incremental: true
})

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

/** Errors a node gives for bytes it already has or has already mined: sending them again did no harm. */
const alreadyThere = (error: unknown) =>
  /already known|already imported|known transaction|nonce too low|AlreadyKnown|NonceTooLow/i.test(String(error))

/** Raises the fees of a nonce's newest version and sends the replacement, under the monitor's lease; answers whether it did. */
const replace = (key: KeyState, newest: JournaledTransaction, baseFee: bigint, fence: KeyFence) =>
  Effect.gen(function* () {
    const estimated = yield* read(() => key.client.estimateFeesPerGas())
    const tip = largest([bumped(newest.maxPriorityFeePerGas), estimated.maxPriorityFeePerGas])
    const wanted = largest([bumped(newest.maxFeePerGas), estimated.maxFeePerGas, 2n * baseFee + tip])
    const cap = key.options.maxFeePerGas
    if (cap !== undefined && bumped(newest.maxFeePerGas) > cap) {
      yield* Effect.logWarning(
        `transaction ${newest.hash} (nonce ${newest.nonce}) is stuck, and a replacement would pass MAX_FEE_PER_GAS`
      )
      return false
    }
    const maxFeePerGas = cap !== undefined && wanted > cap ? cap : wanted
    const replacement = yield* signAndRecord(
      key,
      {
        relayer: key.relayer,
        nonce: newest.nonce,
        to: newest.to,
        data: newest.data,
        gas: newest.gas,
        maxFeePerGas,
        // A tip above the fee cap is never paid: the cap bounds it.
        maxPriorityFeePerGas: smallest([tip, maxFeePerGas]),
        carries: newest.carries
      },
      fence
    )
    const sent = yield* Effect.exit(broadcast(key, replacement))
    if (sent._tag === "Failure") {
      yield* move(key, replacement, "failed", { fence })
      yield* Effect.logWarning(`replacing transaction ${newest.hash} (nonce ${newest.nonce}) failed`, sent.cause)
      return false
    }
    yield* move(key, replacement, "sent", { fence })
    yield* Effect.logInfo(
      `replaced transaction ${newest.hash} (nonce ${newest.nonce}) with ${replacement.hash}, fees ${newest.maxFeePerGas} -> ${maxFeePerGas}`
    )
    return true
  })

/** The hash of the chain's block `block`, or undefined when it has none. */
const hashAt = (key: KeyState, block: number) =>
  Effect.tryPromise({ try: () => key.client.getBlock({ blockNumber: BigInt(block) }), catch: (error) => error }).pipe(
    Effect.map((found) => found.hash ?? undefined),
    Effect.catch((error) =>
      error instanceof Error && error.name === "BlockNotFoundError"
        ? Effect.succeed(undefined)
        : Effect.fail(readError(error))
    )
  )

/**
 * Versions mined that the chain no longer holds where they were seen (a reorganisation, or a node restored from an
 * older state) are in flight again: the pass then sends them again. The monitor follows the chain on a block cursor,
 * as the deposit follower does: while the chain holds the cursor's block, only versions mined after it are read
 * again; after a reorganisation under it, or with no cursor yet, those of the last `reorgWindowBlocks` blocks.
 */
const followReorgs = (key: KeyState, head: { readonly number: bigint; readonly hash: Hex }, fence: KeyFence) =>
  Effect.gen(function* () {
    const window = Number(key.reorgWindowBlocks)
    const stored = yield* Ref.get(key.cursor)
    const check = yield* checkCursor(
      stored ?? { block: Number(head.number) - window, hash: "" },
      Number(head.number),
      (block) => hashAt(key, block),
      window
    )
    const from = BigInt(Math.max(0, check.cursor.block + 1))
    for (const version of yield* key.journal.minedSince(key.chainId, key.relayer, from)) {
      const receipt = yield* receiptOf(key, version.hash)
      if (receipt?.blockHash === version.blockHash) continue
      if (receipt !== undefined) {
        const block = { number: receipt.blockNumber, hash: receipt.blockHash }
        yield* move(key, version, version.status, { block, fence })
        continue
      }
      yield* move(key, version, "sent", { fence })
      yield* Effect.logWarning(
        `transaction ${version.hash} (nonce ${version.nonce}) was mined in block ${version.blockNumber}, which the chain no longer holds: in flight again`
      )
    }
    yield* Ref.set(key.cursor, { block: Number(head.number), hash: head.hash })
  })

/** What one pass of the monitor read of the chain at its start. */
interface Pass {
  readonly head: bigint
  readonly baseFee: bigint
  /** The chain's count of the key's mined transactions. */
  readonly minedCount: number
  readonly now: number
}

/** Whether the node holds `newest` (pending); a failure to ask is the chain's being unavailable. */
const isPending = (key: KeyState, newest: JournaledTransaction) =>
  Effect.tryPromise({
    try: () => key.client.getTransaction({ hash: newest.hash }),
    catch: (error) => error
  }).pipe(
    Effect.as(true),
    Effect.catch((error) =>
      error instanceof Error && error.name === "TransactionNotFoundError"
        ? Effect.succeed(false)
        : Effect.fail(readError(error))
    )
  )

/** One unfinished nonce of the key, in one pass of the monitor. */
const followNonce = (key: KeyState, nonce: number, pass: Pass, fence: KeyFence) =>
  Effect.gen(function* () {
    const versions = yield* key.journal.versions(key.chainId, key.relayer, nonce)
    if ((yield* minedVersion(key, versions, pass.head, fence)) !== undefined) return
    const live = versions
      .filter((version) => version.status !== "failed" && version.status !== "replaced")
      .map((version) => ({ ...version }) as JournaledTransaction & { status: TransactionStatus })
    // A block that held one of them was reorganised away: it is in flight again.
    for (const version of live) {
      if (
        (version.status === "included" || version.status === "confirmed") &&
        (yield* move(key, version, "sent", { fence }))
      ) {
        version.status = "sent"
        yield* Metric.update(transactionsReorganised, 1)
      }
    }
    if (nonce < pass.minedCount) {
      // The chain has passed this nonce, and none of our versions is in it: something else took it.
      for (const version of live) yield* move(key, version, "failed", { fence })
      yield* Ref.set(key.nextNonce, undefined)
      yield* Effect.logError(
        `nonce ${nonce} of relayer ${key.account.address} was taken by a transaction the journal did not see`
      )
      return
    }
    const newest = live.at(-1)
    if (newest === undefined) return
    // Signed and journaled, not yet sent: its sender (in this process or another) is between the journal and the node
    // and sends it itself; the same bytes from here could reach the node first and make its send look refused. Past
    // the send lease its sender is gone, and the monitor sends it.
    if (newest.status === "signed" && pass.now - newest.createdAt < key.sendLeaseMillis) return
    const pending = yield* isPending(key, newest)
    if (!pending) {
      // The node lost it (dropped, evicted, or a send whose answer was lost): the same bytes again. A node that
      // refuses them (priced below the base fee now) gets a replacement instead.
      const resent = yield* broadcast(key, newest).pipe(
        Effect.as(true),
        Effect.catch((error) =>
          alreadyThere(error.reason)
            ? Effect.succeed(true)
            : Effect.as(Effect.logWarning(`sending ${newest.hash} again was refused: ${error.reason}`), false)
        )
      )
      if (resent) {
        if (newest.status === "signed") yield* move(key, newest, "sent", { fence })
        yield* Effect.logInfo(`sent transaction ${newest.hash} (nonce ${nonce}) again: the node had lost it`)
        return
      }
    }
    if (!pending || newest.maxFeePerGas < pass.baseFee || pass.now - newest.createdAt >= key.replaceAfterMillis) {
      yield* replace(key, newest, pass.baseFee, fence)
    }
  })

/** One pass over the key's unfinished transactions, under the monitor lease's `fence`. */
const followAll = (key: KeyState, fence: KeyFence): Effect.Effect<void, ChainUnreachable | LeaseLost> =>
  Effect.gen(function* () {
    const { account, chainId, client, journal, relayer } = key
    const latest = yield* read(() => client.getBlock({ blockTag: "latest" }))
    yield* followReorgs(key, latest, fence)
    const open = yield* journal.unfinished(chainId, relayer)
    if (open.length === 0) return
    const minedCount = yield* read(() => client.getTransactionCount({ address: account.address, blockTag: "latest" }))
    const pass: Pass = {
      head: latest.number,
      baseFee: latest.baseFeePerGas ?? 0n,
      minedCount,
      now: yield* Clock.currentTimeMillis
    }
    const nonces = [...new Set(open.map((row) => row.nonce))]
    for (const nonce of nonces) yield* followNonce(key, nonce, pass, fence)
  })

/**
 * One pass of the monitor, when this process holds (or takes) the key's `monitor` lease: renewed with the token it
 * held, taken when free; a pass that finds the lease another's does nothing, and one that loses it meanwhile (a
 * replacement the journal refused) stops.
 */
export const monitor = (key: KeyState): Effect.Effect<void, ChainUnreachable> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const held = yield* Ref.get(key.monitorToken)
    const lease = yield* key.journal.lease(key.chainId, key.relayer, "monitor", held, now, now + 3 * key.monitorMillis)
    yield* Ref.set(key.monitorToken, Option.getOrUndefined(Option.map(lease, (taken) => taken.token)))
    if (Option.isNone(lease)) return
    yield* followAll(key, { lease: "monitor", token: lease.value.token }).pipe(
      Effect.catchTag("LeaseLost", () => Ref.set(key.monitorToken, undefined))
    )
  }).pipe(Effect.withSpan("Relayer.monitor"))

/**
 * Takes the chain's word for what it holds: the relayer's versions the journal saw mined at or past the chain's
 * count of its transactions are put back in flight (the monitor sends them again, in nonce order), and the next
 * nonce is read again. At start, and after the node restarted from a saved state (`forgetNonce`).
 */
export const resync = (key: KeyState) =>
  Effect.gen(function* () {
    const { account, chainId, client, journal, relayer } = key
    const mined = yield* read(() => client.getTransactionCount({ address: account.address, blockTag: "latest" }))
    const reopened = yield* journal.reopenFrom(chainId, relayer, mined, yield* Clock.currentTimeMillis)
    if (reopened > 0) {
      yield* Effect.logWarning(
        `the chain lacks ${reopened} transaction(s) of relayer ${account.address} that were mined (from nonce ${mined}): sending them again`
      )
    }
    yield* Ref.set(key.nextNonce, undefined)
  }).pipe(key.lock.withPermits(1))

/** Runs the key's monitor for the scope's lifetime, every `monitorMillis` while this process holds its lease. */
export const runMonitor = (key: KeyState, pass: Effect.Effect<void, ChainUnreachable>) =>
  Effect.gen(function* () {
    const { chainId, journal, monitorMillis, relayer } = key
    // One process at a time follows the key: the lease outlives a few missed passes, and is given back on the way out.
    yield* Effect.addFinalizer(() =>
      Effect.flatMap(Ref.get(key.monitorToken), (token) =>
        token === undefined ? Effect.void : journal.release(chainId, relayer, "monitor", token)
      )
    )
    // While the chain cannot be read, the monitor backs off quietly (a line when it starts failing, one when it works).
    yield* repeatQuietly(`relayer monitor ${key.account.address}`, pass, {
      every: Duration.millis(monitorMillis),
      maxBackoff: Duration.millis(8 * monitorMillis)
    }).pipe(Effect.forkScoped)
  })

/** Runs `pass` until none of the key's transactions is in flight, for at most `timeoutMillis`; answers whether. */
export const drain = (key: KeyState, pass: Effect.Effect<void, ChainUnreachable>, timeoutMillis: number) =>
  Effect.gen(function* () {
    const deadline = (yield* Clock.currentTimeMillis) + timeoutMillis
    while ((yield* key.journal.unfinished(key.chainId, key.relayer)).length > 0) {
      if ((yield* Clock.currentTimeMillis) >= deadline) return false
      yield* pass.pipe(Effect.ignore)
      yield* Effect.sleep(Duration.millis(key.client.pollingInterval))
    }
    return true
  })
