/**
 * The relayer's send path (see `Relayer.ts`): a key's queue of this process's transactions, sent under the key's
 * lease, each on its nonce, signed, journaled and broadcast.
 *
 * - **Keys shared by processes** (docs/decisions/0060). Any number of processes share the pool's keys. A key's nonce
 *   sequence is held by one sender at a time through the journal's `send` lease, taken for one send (allocate, sign,
 *   journal, broadcast: milliseconds) and given back; a send tries the keys in turn and waits briefly when every one
 *   is taken. No process owns a key, so no request waits on a process that has none, and a sender that dies holding
 *   a lease blocks its key for `sendLeaseMillis` at most.
 * - **Journal before broadcast.** Every transaction is signed, written to the `TransactionJournal`, and only then sent.
 *   Whatever happens next (a lost answer, a node that drops it, a crash), the journal holds the bytes to send again.
 * - **Nonces.** Allocated under the key's lease (and, in the process, a one-permit semaphore) that covers only
 *   allocation, signing, journaling and `eth_sendRawTransaction`, so gas estimation and receipt waiting stay
 *   concurrent. A nonce is one past the journal's highest nonce of the key that did not fail (another process's sends
 *   are there), and at least the node's pending count (read at start, after a failed send or `forgetNonce`, then
 *   counted on), so a transaction the node lost keeps its nonce until the monitor has sent it again.
 */

import { ChainUnavailable } from "@svc/domain/chain"
import { Cause, Clock, Deferred, Duration, Effect, Option, Ref } from "effect"
import type { Hash } from "viem"
import {
  broadcast,
  type Fees,
  type KeyState,
  pendingNonce,
  type Queued,
  type RelayedTransaction,
  setStatus,
  signAndRecord
} from "./RelayerKey.ts"

/**
 * How long a key's `send` lease is taken for: a sender that dies holding it blocks the key this long at most. Well
 * above one send (an RPC call bounded by `RPC_TIMEOUT_MS`); a live sender gives it back at once.
 */
export const sendLeaseMillis = 10_000

/** The longest run of sends one process makes under a key's lease before giving others a turn. */
const maxRunMillis = 1_000
const maxRunSends = 64

/** A moment's wait, so that other processes waiting for the key get it. */
const pause = () => Effect.sleep(Duration.millis(2 + Math.floor(Math.random() * 8)))

/** Signs, journals and broadcasts one transaction on `nonce`, under the key's lease. */
const sendOn = (key: KeyState, nonce: number, transaction: RelayedTransaction, fees: Fees) =>
  Effect.gen(function* () {
    const row = yield* signAndRecord(key, {
      relayer: key.relayer,
      nonce,
      to: transaction.to ?? null,
      data: transaction.data,
      gas: transaction.gas,
      ...fees,
      carries: transaction.carries ?? []
    })
    yield* broadcast(key, row.raw).pipe(
      // Refused outright: the nonce is free again. Maybe taken: the monitor sends the same bytes again.
      Effect.tapError((error) => setStatus(key, row.hash, error.nothingSent ? "failed" : "sent"))
    )
    yield* setStatus(key, row.hash, "sent")
    return row.hash as Hash
  })

/** One run of sends under the key's lease, taken at `now` (see `drain`). */
const sendRun = (key: KeyState, now: number) =>
  Effect.gen(function* () {
    const { chainId, journal, queue, relayer } = key
    const runUntil = now + maxRunMillis
    let nonce: number | undefined
    for (let sent = 0; queue.length > 0 && sent < maxRunSends; sent++) {
      if ((yield* Clock.currentTimeMillis) >= runUntil) break
      const next = queue.shift() as Queued
      const exit = yield* Effect.exit(
        Effect.gen(function* () {
          if (nonce === undefined) {
            const floor = (yield* Ref.get(key.nextNonce)) ?? (yield* pendingNonce(key))
            nonce = Math.max(floor, (yield* journal.nextNonce(chainId, relayer)) ?? 0)
          }
          return { nonce, hash: yield* sendOn(key, nonce, next.transaction, next.fees) }
        })
      )
      if (exit._tag === "Success") {
        nonce = exit.value.nonce + 1
        yield* Ref.set(key.nextNonce, nonce)
        yield* Deferred.succeed(next.result, exit.value.hash)
        continue
      }
      const error = Cause.findErrorOption(exit.cause)
      const refused = Option.isSome(error) && error.value.nothingSent === true
      // Read the nonce again from the node and the journal: refused outright, it may be the nonce itself.
      nonce = undefined
      yield* Ref.set(key.nextNonce, undefined)
      if (refused && !next.retried) {
        queue.unshift({ ...next, retried: true })
        continue
      }
      yield* Deferred.failCause(next.result, exit.cause)
    }
  }).pipe(key.lock.withPermits(1), Effect.ensuring(key.journal.release(key.chainId, key.relayer, "send", key.holder)))

/**
 * Sends what waits, under the key's lease: taken once for a run of sends (at most `maxRunMillis` or `maxRunSends`,
 * so other processes get the key too), the next nonce read once per run (no one else can sign on the key while the
 * lease is held), and given back when nothing waits. A transaction the node refused outright is tried once more on a
 * nonce read again from the node; one that may have reached it is not (the journal has it; the monitor goes on).
 * One that waited `keyWaitMillis` for the key fails, nothing sent.
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
          new ChainUnavailable({ reason: `relayer key ${key.account.address} stayed in use`, nothingSent: true })
        )
      }
      if (queue.length === 0) {
        key.draining = false
        return
      }
      if (!(yield* key.journal.lease(key.chainId, key.relayer, "send", key.holder, now, now + sendLeaseMillis))) {
        yield* pause()
        continue
      }
      yield* sendRun(key, now)
      // Others may be waiting for the key: a moment before taking it again.
      if (queue.length > 0) yield* pause()
    }
  }).pipe(
    // Whatever ends the drain, no one is left waiting on it.
    Effect.onExit(() =>
      Effect.gen(function* () {
        key.draining = false
        for (const waiting of key.queue.splice(0)) {
          yield* Deferred.fail(
            waiting.result,
            new ChainUnavailable({ reason: "the relayer stopped", nothingSent: true })
          )
        }
      })
    )
  )

/** Queues the transaction for the key; answers its hash once sent (see `Relayer.send`). */
export const submit = (key: KeyState, transaction: RelayedTransaction, fees: Fees) =>
  Effect.gen(function* () {
    const result = yield* Deferred.make<Hash, ChainUnavailable>()
    const deadline = (yield* Clock.currentTimeMillis) + key.keyWaitMillis
    key.queue.push({ transaction, fees, result, deadline, retried: false })
    if (!key.draining) {
      key.draining = true
      yield* Effect.forkIn(drain(key), key.scope)
    }
    return yield* Deferred.await(result)
  })
