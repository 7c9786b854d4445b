/**
 * The relayer: one funded account that sends the service's transactions and pays their gas.
 *
 * Nonces are allocated in-process under a one-permit semaphore that covers only signing and
 * `eth_sendRawTransaction` (a few milliseconds), so any number of concurrent requests get consecutive nonces
 * without collisions, while gas estimation and receipt waiting stay concurrent. The next nonce is remembered after a
 * send is accepted and re-read from the node's pending count after any failed send, so a rejected transaction never
 * leaves a gap. Several processes must not share a relayer key (give each its own key).
 */
import type { ChainUnavailable } from "@svc/domain/chain"
import { Effect, Ref, Semaphore } from "effect"
import type { Address, Hash, Hex, PrivateKeyAccount, PublicClient } from "viem"
import { readError } from "./ChainRevert.ts"

/** A transaction the relayer sends: gas already estimated. */
export interface RelayedTransaction {
  /** Absent for a contract deployment. */
  readonly to?: Address
  readonly data: Hex
  readonly gas: bigint
}

/** Sends transactions from one account with correct, gap-free nonces. */
export interface Relayer {
  readonly address: Address
  readonly send: (transaction: RelayedTransaction) => Effect.Effect<Hash, ChainUnavailable>
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
  const lock = yield* Semaphore.make(1)
  const nextNonce = yield* Ref.make<number | undefined>(undefined)

  const pendingNonce = Effect.tryPromise({
    try: () => client.getTransactionCount({ address: account.address, blockTag: "pending" }),
    catch: readError
  })

  const sendOnce = (transaction: RelayedTransaction, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }) =>
    Effect.gen(function* () {
      const nonce = (yield* Ref.get(nextNonce)) ?? (yield* pendingNonce)
      const serializedTransaction = yield* Effect.tryPromise({
        try: () => account.signTransaction({ ...transaction, ...fees, chainId, nonce, type: "eip1559" }),
        catch: readError
      })
      const hash = yield* Effect.tryPromise({
        try: () => client.sendRawTransaction({ serializedTransaction }),
        catch: readError
      }).pipe(Effect.tapError(() => Ref.set(nextNonce, undefined)))
      yield* Ref.set(nextNonce, nonce + 1)
      return hash
    }).pipe(lock.withPermits(1))

  const send = Effect.fn("Relayer.send")(function* (transaction: RelayedTransaction) {
    const estimated = yield* Effect.tryPromise({ try: () => client.estimateFeesPerGas(), catch: readError })
    const fees = { maxFeePerGas: estimated.maxFeePerGas, maxPriorityFeePerGas: estimated.maxPriorityFeePerGas }
    // One retry after re-reading the nonce: another sender of the same key, or a dropped transaction, shifts it.
    return yield* sendOnce(transaction, fees).pipe(Effect.retry({ times: 1 }))
  })

  return { address: account.address, send } satisfies Relayer
})
