/**
 * Embedded mode saves anvil's chain every second, while the database commits each execution before the API answers.
 * After a `kill -9` the restored chain can therefore be up to a second behind the records: an execution the API
 * answered 200 for may be missing on chain. The relayer's journal sends its lost transactions again first, the same
 * bytes (decision 0052; they are waited for); what is left is handed to recovery (decision 0093), the one path that
 * sends a request again: each execution recorded since the chain was saved that the chain lacks is reopened and sent
 * again with the signature it executed with, in its original block time (so its `expires` still holds), before the
 * server listens.
 */
import { EmbeddedChain } from "@svc/adapters/evm"
import { Recovery } from "@svc/domain/payment"
import { Effect } from "effect"

/** How far before the chain's save time executions are checked: a save runs while requests are being recorded. */
const marginMillis = 10_000

/**
 * Recovers what a chain restored from its save at `savedAt` (epoch ms; everything when the chain was not restored)
 * lost; answers how many requests were sent again.
 */
export const recoverRestoredChain = Effect.fn("ChainRecovery.recoverRestoredChain")(function* (
  savedAt: number | undefined
) {
  const embedded = yield* EmbeddedChain
  if (!(yield* embedded.drain(30_000))) {
    yield* Effect.logWarning("the relayer's transactions sent again after the restart are not all mined yet")
  }
  const resent = yield* Recovery.recoverLost(savedAt === undefined ? 0 : savedAt - marginMillis, {
    // Anvil refuses a time before its last block: then the block takes the current time, as any other.
    beforeSendAgain: (claimed) =>
      embedded.setNextBlockTimestamp(BigInt(Math.floor(claimed.claim.claimedAt / 1000))).pipe(Effect.ignore)
  })
  if (resent > 0) yield* Effect.logInfo(`sent again ${resent} execution(s), which the restored chain had lost`)
  return resent
})
