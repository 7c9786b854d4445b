/**
 * Embedded mode saves anvil's chain every second, while the database commits each execution before the API answers.
 * After a `kill -9` the restored chain can therefore be up to a second behind the records: an execution the API
 * answered 200 for may be missing on chain. At start-up, each execution recorded after the chain was last saved is
 * checked, and one the chain does not hold is sent again with the signature it executed with, in its original block
 * time (so its `expires` still holds); the records then name the new transaction. Records and chain agree again.
 *
 * The transaction journal (docs/decisions/0052) sends the lost transactions themselves again, the same bytes, as soon as
 * the relayer starts: those are waited for first, so what is left here is what the journal never held (data from
 * before it).
 */
import { EmbeddedChain } from "@svc/adapters/evm"
import { ChainGateway } from "@svc/domain/chain"
import { PaymentLedger, sendToChain } from "@svc/domain/payment"
import { Effect } from "effect"
import type { Hex } from "viem"

/** How far before the chain's save time executions are checked: a save runs while requests are being recorded. */
const marginMillis = 10_000

/**
 * Sends again every execution recorded since `savedAt` (epoch ms; all of them when the chain was not restored) that
 * the chain does not hold; answers how many were sent.
 */
export const resendLostExecutions = Effect.fn("ChainRecovery.resendLostExecutions")(function* (
  savedAt: number | undefined
) {
  const ledger = yield* PaymentLedger
  const chain = yield* ChainGateway
  const embedded = yield* EmbeddedChain
  if (!(yield* embedded.drain(30_000))) {
    yield* Effect.logWarning("the relayer's transactions sent again after the restart are not all mined yet")
  }
  const executed = yield* ledger.executedSince(savedAt === undefined ? 0 : savedAt - marginMillis)
  let resent = 0
  for (const request of executed) {
    if (yield* chain.isSaltUsed(BigInt(request.salt))) continue
    const signature = request.signature as Hex
    // Anvil refuses a time before its last block: then the block takes the current time, as any other.
    yield* embedded.setNextBlockTimestamp(BigInt(Math.floor(request.claimedAt / 1000))).pipe(Effect.ignore)
    const settlement = yield* sendToChain(request.issued, signature).pipe(
      Effect.catch((error) =>
        Effect.as(
          Effect.logError(`execution ${request.salt} is recorded but the restored chain refused it again`, error),
          undefined
        )
      )
    )
    if (settlement === undefined) continue
    yield* ledger.amendTransaction(request.salt, request.result.transaction, settlement.transactionHash)
    yield* Effect.logInfo(
      `re-sent execution ${request.salt}, which the restored chain had lost: now ${settlement.transactionHash}`
    )
    resent++
  }
  return resent
})
