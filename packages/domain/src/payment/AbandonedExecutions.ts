/**
 * Finishing what dead processes left (decision 0063): a request claimed by a process that died (its lease expired)
 * is recorded from the chain when its transaction was mined, or sent again when it was not and is no longer in flight,
 * without waiting for the client to send the same PUT again. Any number of processes may sweep: the ledger's
 * `takeOver` lets exactly one finish each request. The same sweep finishes the member blocks a process left between
 * the chain and the database (`finishPendingBlocks`, decision 0107).
 */
import { Clock, Duration, Effect, Layer } from "effect"
import type { Uint256String } from "../Evm.ts"
import { finishPendingBlocks } from "../membership/BlockMember.ts"
import { repeatQuietly } from "../Worker.ts"
import { type AbandonedOutcome, finishAbandoned } from "./PaymentExecution.ts"
import { PaymentLedger } from "./PaymentLedger.ts"

/** Finishes up to `limit` abandoned requests, oldest claim first; answers what became of each. */
export const finishAbandonedRequests = Effect.fn("AbandonedExecutions.finish")(function* (limit = 20) {
  const now = yield* Clock.currentTimeMillis
  const requests = yield* PaymentLedger.use((ledger) => ledger.abandoned(now, limit))
  const outcomes: Array<{ readonly salt: Uint256String; readonly outcome: AbandonedOutcome }> = []
  for (const request of requests) {
    outcomes.push({ salt: request.salt, outcome: yield* finishAbandoned(request) })
  }
  return outcomes
})

/** A sweep every `every` (default 15 s), for the lifetime of the layer's scope. */
export const layer = (options: { readonly every?: Duration.Input } = {}) =>
  Layer.effectDiscard(
    repeatQuietly("abandoned executions", Effect.andThen(finishAbandonedRequests(), finishPendingBlocks()), {
      every: options.every ?? Duration.seconds(15)
    }).pipe(Effect.forkScoped)
  )
