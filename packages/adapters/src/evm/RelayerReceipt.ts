/**
 * Which version of a nonce the chain holds, and how deep (see `Relayer.ts`): whichever version is mined is the one
 * `receipt` answers, once `confirmations` deep; until then the transaction is in flight and the monitor follows it.
 */

import { type JournaledTransaction, type KeyFence, SendOutcomeUnknown } from "@svc/domain/chain"
import { Clock, Duration, Effect } from "effect"
import { type Hash, hexToBigInt } from "viem"
import { readError } from "./ChainRevert.ts"
import { type KeyState, move, read } from "./RelayerKey.ts"

/** The receipt of `hash`, or undefined while the node has none. */
export const receiptOf = (key: KeyState, hash: Hash) =>
  Effect.tryPromise({
    try: () => key.client.getTransactionReceipt({ hash }),
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
const depthOf = (key: KeyState, blockNumber: bigint, head: bigint | undefined) =>
  // A head read before the block was mined is the block itself.
  head === undefined ? key.confirmations : (head > blockNumber ? head : blockNumber) - blockNumber + 1n

/**
 * The mined version of a nonce, if any, with its depth: recorded as `confirmed` once `confirmations` deep, else
 * `included`; the other versions as `replaced`. Each a move from the status read (forward only: what a reorganisation
 * undoes is the monitor's, under its lease, `fence`).
 */
export const minedVersion = (
  key: KeyState,
  versions: ReadonlyArray<JournaledTransaction>,
  head: bigint | undefined,
  fence?: KeyFence | undefined
) =>
  Effect.gen(function* () {
    for (const version of [...versions].reverse()) {
      if (version.status === "failed") continue
      const receipt = yield* receiptOf(key, version.hash)
      if (receipt === undefined) continue
      const depth = depthOf(key, receipt.blockNumber, head)
      const status = depth >= key.confirmations ? "confirmed" : "included"
      if (version.status !== status || version.blockHash !== receipt.blockHash) {
        yield* move(key, version, status, { block: { number: receipt.blockNumber, hash: receipt.blockHash }, fence })
      }
      for (const other of versions) {
        if (other.hash !== version.hash && other.status !== "replaced" && other.status !== "failed") {
          yield* move(key, other, "replaced", { fence })
        }
      }
      return { receipt, depth }
    }
    return undefined
  })

/**
 * The receipt of whichever version of `hash`'s nonce is mined, waiting for one; `onVersion` hears of each newer
 * version sent meanwhile (a replacement with raised fees). The transaction was sent, so whatever ends the wait
 * otherwise (a node that cannot be read, every version failed, no block in `receiptTimeoutMillis`) is
 * `SendOutcomeUnknown`, naming the newest version: recovery finds out from the chain (decision 0093).
 */
export const receipt = (key: KeyState) =>
  Effect.fn("Relayer.receipt")(function* (hash: Hash, onVersion?: ((hash: Hash) => Effect.Effect<void>) | undefined) {
    const { chainId, client, confirmations, journal, relayer } = key
    const row = yield* journal.byHash(hash)
    const deadline = (yield* Clock.currentTimeMillis) + key.receiptTimeoutMillis
    let current = hash
    const unknown = (reason: string) => new SendOutcomeUnknown({ reason, transaction: current })
    while (true) {
      const versions = row === undefined ? [] : yield* journal.versions(chainId, relayer, row.nonce)
      const newest = versions.findLast((version) => version.status === "sent")
      if (onVersion !== undefined && newest !== undefined && newest.hash !== current) {
        current = newest.hash
        yield* onVersion(current)
      }
      // The head only matters past one confirmation: the usual wait costs no call for it.
      const looked = yield* Effect.gen(function* () {
        const head =
          confirmations > 1n
            ? yield* read(() => client.request({ method: "eth_blockNumber" }).then(hexToBigInt))
            : undefined
        return row === undefined
          ? yield* Effect.map(receiptOf(key, hash), (receipt) =>
              receipt === undefined ? undefined : { receipt, depth: depthOf(key, receipt.blockNumber, head) }
            )
          : yield* minedVersion(key, versions.length === 0 ? [row] : versions, head)
      }).pipe(Effect.mapError((error) => unknown(`the node could not be read: ${error.reason}`)))
      const found = looked
      // Answered once `confirmations` deep: until then the transaction is in flight (and may yet be reorganised away).
      if (found !== undefined && found.depth >= confirmations) return found.receipt
      if (versions.length > 0 && versions.every((version) => version.status === "failed")) {
        return yield* unknown(`transaction ${hash} can no longer be mined`)
      }
      if ((yield* Clock.currentTimeMillis) >= deadline)
        return yield* unknown(`transaction ${hash} was not mined in time`)
      yield* Effect.sleep(Duration.millis(client.pollingInterval))
    }
  })
