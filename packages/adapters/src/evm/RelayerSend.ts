/**
 * The relayer's send path (see `Relayer.ts`): a key's queue of this process's transactions, sent under the key's
 * lease, each on its nonce, signed, journaled and broadcast.
 *
 * - **Keys shared by processes** (docs/decisions/0060). Any number of processes share the pool's keys. A key's nonce
 *   sequence is held by one sender at a time through the journal's `send` lease, taken for a run of sends and given
 *   back; a send waits briefly when the key is taken. No process owns a key, so no request waits on a process that has
 *   none, and a sender that dies holding the lease blocks its key for `sendLeaseMillis` at most.
 * - **Fenced** (decision 0090). Before it signs each nonce the sender renews its lease and learns from the journal's
 *   answer whether the lease is still its own, and the journal records the signed version only under the lease's
 *   current fencing token: a sender paused past its lease (a GC, a swap storm, `SIGSTOP`) wakes, finds another holder,
 *   and neither signs nor journals nor broadcasts a nonce that holder allocated. Its transaction waits for the key again.
 * - **Journal before broadcast.** Every transaction is signed, written to the `TransactionJournal`, and only then sent.
 *   Whatever happens next (a lost answer, a node that drops it, a crash), the journal holds the bytes to send again.
 * - **Nonces.** Allocated under the key's lease (and, in the process, a one-permit semaphore) that covers only
 *   allocation, signing, journaling and `eth_sendRawTransaction`, so gas estimation and receipt waiting stay
 *   concurrent. A nonce is one past the journal's highest nonce of the key that did not fail (another process's sends
 *   are there), and at least the node's pending count (read at start, after a failed send or `forgetNonce`, then
 *   counted on), so a transaction the node lost keeps its nonce until the monitor has sent it again.
 */

import { ChainUnreachable, type KeyFence, type SendOutcomeUnknown } from "@svc/domain/chain"
import type { Lease } from "@svc/domain/Lease"
import { Cause, Clock, Deferred, Duration, Effect, Option, Ref } from "effect"
import type { Hash } from "viem"
import {
  broadcast,
  type Fees,
  type KeyState,
  move,
  pendingNonce,
  type Queued,
  type RelayedTransaction,
  signAndRecord
} from "./RelayerKey.ts"

/** The longest run of sends one process makes under a key's lease before giving others a turn. */
const maxRunMillis = 1_000
const maxRunSends = 64

/** A moment's wait, so that other processes waiting for the key get it. */
const pause = () => Effect.sleep(Duration.millis(2 + Math.floor(Math.random() * 8)))

/** What one send under the lease ended with. */
type Sent =
  | { readonly _tag: "Sent"; readonly nonce: number; readonly hash: Hash }
  | { readonly _tag: "Lost" }
  | { readonly _tag: "Failed"; readonly error: ChainUnreachable | SendOutcomeUnknown; readonly nonce?: number }

/**
 * Renews the key's `send` lease for its holder: the journal's answer says whether it is still the holder's. Asked
 * before each nonce is signed. A lease that lapsed and was free again is taken anew under a new token: then the
 * holder was away (paused), the nonce it read before may be another's since, and it gives that new lease straight
 * back, to take the key again from the start.
 */
const stillHeld = (key: KeyState, lease: Lease) =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    const renewed = yield* key.journal.lease(
      key.chainId,
      key.relayer,
      "send",
      lease.token,
      now,
      now + key.sendLeaseMillis
    )
    if (Option.isNone(renewed)) return false
    if (renewed.value.token === lease.token) return true
    yield* key.journal.release(key.chainId, key.relayer, "send", renewed.value.token)
    return false
  })

/** Signs, journals and broadcasts one transaction on `nonce`, under the key's lease `fence`. */
const sendOn = (key: KeyState, nonce: number, transaction: RelayedTransaction, fees: Fees, fence: KeyFence) =>
  Effect.gen(function* () {
    const row = yield* signAndRecord(
      key,
      {
        relayer: key.relayer,
        nonce,
        to: transaction.to ?? null,
        data: transaction.data,
        gas: transaction.gas,
        ...fees,
        carries: transaction.carries ?? []
      },
      fence
    )
    const sent = yield* Effect.exit(broadcast(key, row))
    const failure = sent._tag === "Failure" ? Cause.findErrorOption(sent.cause) : Option.none()
    // Refused outright: the nonce is free again. Maybe taken: the monitor sends the same bytes again. A move refused
    // for a lease lost since the journal took the row (a pause between the two) changes nothing of what the broadcast
    // did: the row stays `signed`, and the key's next holder's monitor follows it from the chain.
    const refused = Option.isSome(failure) && failure.value._tag === "ChainUnreachable"
    yield* move(key, row, refused ? "failed" : "sent", { fence })
    if (sent._tag === "Failure") return yield* Effect.failCause(sent.cause)
    return row.hash as Hash
  })

/** One send under the lease, on the run's next nonce (read when the run has none). */
const sendOne = (key: KeyState, lease: Lease, nonce: number | undefined, next: Queued) =>
  Effect.gen(function* () {
    const allocated =
      nonce ??
      Math.max(
        (yield* Ref.get(key.nextNonce)) ?? (yield* pendingNonce(key)),
        (yield* key.journal.nextNonce(key.chainId, key.relayer)) ?? 0
      )
    // The store's answer, not this process's clock, says whether the lease is still ours before a nonce is signed.
    if (!(yield* stillHeld(key, lease))) return { _tag: "Lost" } as Sent
    const hash = yield* sendOn(key, allocated, next.transaction, next.fees, { lease: "send", token: lease.token })
    return { _tag: "Sent", nonce: allocated, hash } as Sent
  }).pipe(
    Effect.catchTag("LeaseLost", () => Effect.succeed({ _tag: "Lost" } as Sent)),
    Effect.catch((error) => Effect.succeed({ _tag: "Failed", error } as Sent))
  )

/** One run of sends under the key's lease, taken at `now` (see `drain`); answers whether the lease was lost. */
const sendRun = (key: KeyState, lease: Lease, now: number) =>
  Effect.gen(function* () {
    const { queue } = key
    const runUntil = now + maxRunMillis
    let nonce: number | undefined
    for (let sent = 0; queue.length > 0 && sent < maxRunSends; sent++) {
      if ((yield* Clock.currentTimeMillis) >= runUntil) break
      const next = queue.shift() as Queued
      const outcome = yield* sendOne(key, lease, nonce, next)
      if (outcome._tag === "Sent") {
        nonce = outcome.nonce + 1
        yield* Ref.set(key.nextNonce, nonce)
        yield* Deferred.succeed(next.result, outcome.hash)
        continue
      }
      // Read the nonce again from the node and the journal: refused outright, it may be the nonce itself.
      nonce = undefined
      yield* Ref.set(key.nextNonce, undefined)
      if (outcome._tag === "Lost") {
        queue.unshift(next)
        // The journal refused the version: the nonce was another live version's (read again, under the same lease),
        // or another holder has the key (nothing of this one was signed or sent; it waits for the key again).
        if (yield* stillHeld(key, lease)) continue
        return true
      }
      if (outcome.error._tag === "ChainUnreachable" && !next.retried) {
        queue.unshift({ ...next, retried: true })
        continue
      }
      yield* Deferred.fail(next.result, outcome.error)
    }
    yield* key.journal.release(key.chainId, key.relayer, "send", lease.token)
    return false
  }).pipe(key.lock.withPermits(1))

/**
 * Sends what waits, under the key's lease: taken once for a run of sends (at most `maxRunMillis` or `maxRunSends`,
 * so other processes get the key too), renewed before each nonce, the next nonce read once per run (no one else can
 * sign on the key while the lease is held), and given back when nothing waits. A transaction the node refused outright
 * is tried once more on a nonce read again from the node; one that may have reached it is not (the journal has it; the
 * monitor goes on). One that waited `keyWaitMillis` for the key fails, nothing sent.
 */
const drain = (key: KeyState): Effect.Effect<void> =>
  Effect.gen(function* () {
    const { queue } = key
    while (true) {
      const now = yield* Clock.currentTimeMillis
      for (const waiting of queue.filter((queued) => queued.deadline <= now)) {
        queue.splice(queue.indexOf(waiting), 1)
        yield* Deferred.fail(
          waiting.result,
          new ChainUnreachable({ reason: `relayer key ${key.account.address} stayed in use` })
        )
      }
      if (queue.length === 0) {
        key.draining = false
        return
      }
      const lease = yield* key.journal.lease(
        key.chainId,
        key.relayer,
        "send",
        undefined,
        now,
        now + key.sendLeaseMillis
      )
      if (Option.isNone(lease)) {
        yield* pause()
        continue
      }
      yield* sendRun(key, lease.value, now)
      // Others may be waiting for the key: a moment before taking it again.
      if (queue.length > 0) yield* pause()
    }
  }).pipe(
    // Whatever ends the drain, no one is left waiting on it.
    Effect.onExit(() =>
      Effect.gen(function* () {
        key.draining = false
        for (const waiting of key.queue.splice(0)) {
          yield* Deferred.fail(waiting.result, new ChainUnreachable({ reason: "the relayer stopped" }))
        }
      })
    )
  )

/** Queues the transaction for the key; answers its hash once sent (see `Relayer.send`). */
export const submit = (key: KeyState, transaction: RelayedTransaction, fees: Fees) =>
  Effect.gen(function* () {
    const result = yield* Deferred.make<Hash, ChainUnreachable | SendOutcomeUnknown>()
    const deadline = (yield* Clock.currentTimeMillis) + key.keyWaitMillis
    key.queue.push({ transaction, fees, result, deadline, retried: false })
    if (!key.draining) {
      key.draining = true
      yield* Effect.forkIn(drain(key), key.scope)
    }
    return yield* Deferred.await(result)
  })
