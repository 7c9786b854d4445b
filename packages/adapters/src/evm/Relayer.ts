/**
 * The relayer: one funded account that sends the service's transactions and pays their gas.
 *
 * Nonces are allocated in-process under a one-permit semaphore that covers only signing and
 * `eth_sendRawTransaction` (a few milliseconds), so any number of concurrent requests get consecutive nonces
 * without collisions, while gas estimation and receipt waiting stay concurrent. The next nonce is remembered after a
 * send is accepted and re-read from the node's pending count after any failed send, so a rejected transaction never
 * leaves a gap. Several processes must not share a relayer key (give each its own key).
 */
import { ChainUnavailable } from "@svc/domain/chain"
import { Effect, Ref, Semaphore } from "effect"
import type { Address, Hash, Hex, PrivateKeyAccount, PublicClient } from "viem"
import { nothingSent, readError } from "./ChainRevert.ts"

/** A transaction the relayer sends: gas already estimated. */
export interface RelayedTransaction {
  /** Absent for a contract deployment. */
  readonly to?: Address
  readonly data: Hex
  readonly gas: bigint
}

/** A failure whose sending side is unknown happened before any send (fees, nonce, signing). */
const unsentUnlessKnown = (error: ChainUnavailable) =>
  error.nothingSent === undefined ? new ChainUnavailable({ reason: error.reason, nothingSent: true }) : error

/** Sends transactions from one account with correct, gap-free nonces. */
export interface Relayer {
  readonly address: Address
  /** Fails with `ChainUnavailable` whose `nothingSent` says whether the transaction can have reached the node. */
  readonly send: (transaction: RelayedTransaction) => Effect.Effect<Hash, ChainUnavailable>
  /** Reads the next nonce from the node again: after the node restarted from a saved state, ours may be ahead. */
  readonly forgetNonce: Effect.Effect<void>
}

/** A relayer for `account` on the chain `client` talks to. */
export const makeRelayer: (
  client: PublicClient,
  account: PrivateKeyAccount
) => Effect.Effect<Relayer, ChainUnavailable> = Effect.fnUntraced(function* (
  client: PublicClient,
  account: PrivateKeyAccount
) {
  const chainId = yield* Effect.tryPromise({ try: () => client.getChainId(), catch: readError })
  const failover = client.transport.type === "fallback"
  const lock = yield* Semaphore.make(1)
  const nextNonce = yield* Ref.make<number | undefined>(undefined)

  const pendingNonce = Effect.tryPromise({
    try: () => client.getTransactionCount({ address: account.address, blockTag: "pending" }),
    catch: (error) => new ChainUnavailable({ reason: readError(error).reason, nothingSent: true })
  })

  const sendOnce = (transaction: RelayedTransaction, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) =>
    Effect.gen(function* () {
      const nonce = (yield* Ref.get(nextNonce)) ?? (yield* pendingNonce)
      const serializedTransaction = yield* Effect.tryPromise({
        try: () => account.signTransaction({ ...transaction, ...fees, chainId, nonce, type: "eip1559" }),
        catch: (error) => new ChainUnavailable({ reason: readError(error).reason, nothingSent: true })
      })
      // Sent once, without the transport's retries: after a timeout the node may hold it, and a retry that meets a
      // refused connection must not make that look like nothing was sent.
      const hash = yield* Effect.tryPromise({
        try: () =>
          client.request({ method: "eth_sendRawTransaction", params: [serializedTransaction] }, { retryCount: 0 }),
        // Over several endpoints (failover) only the last one's error is seen: an earlier one may have timed out
        // after taking the transaction, so a failure there never proves that nothing was sent.
        catch: (error) =>
          new ChainUnavailable({ reason: readError(error).reason, nothingSent: !failover && nothingSent(error) })
      }).pipe(Effect.tapError(() => Ref.set(nextNonce, undefined)))
      yield* Ref.set(nextNonce, nonce + 1)
      return hash
    }).pipe(lock.withPermits(1))

  const send = Effect.fn("Relayer.send")(function* (transaction: RelayedTransaction) {
    const estimated = yield* Effect.tryPromise({ try: () => client.estimateFeesPerGas(), catch: readError })
    const fees = { maxFeePerGas: estimated.maxFeePerGas, maxPriorityFeePerGas: estimated.maxPriorityFeePerGas }
    // One retry after re-reading the nonce: another sender of the same key, or a dropped transaction, shifts it.
    // Nothing was sent only when no attempt can have reached the node.
    let maybeSent = false
    return yield* sendOnce(transaction, fees).pipe(
      Effect.tapError((error) =>
        Effect.sync(() => {
          if (error.nothingSent !== true) maybeSent = true
        })
      ),
      Effect.retry({ times: 1 }),
      Effect.mapError((error) => new ChainUnavailable({ reason: error.reason, nothingSent: !maybeSent }))
    )
  }, Effect.mapError(unsentUnlessKnown))

  return { address: account.address, send, forgetNonce: Ref.set(nextNonce, undefined) } satisfies Relayer
})
