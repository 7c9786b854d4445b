/**
 * Recovery (decision 0093): the one path that finds requests whose transaction the chain lacks and sends them again.
 * A request gets here when its holder cannot know what became of its transaction (`SendOutcomeUnknown`: a lost
 * answer, a node that went away, a nonce another transaction took, a spent salt), when its holder died or was paused
 * past its lease (`recoverAbandoned`, the sweep every process runs), or when a chain restored from an older save lost
 * its transaction (`recoverLost`, at start-up and after the embedded node restarts); the sweep also finishes member
 * removals and blocks their process left between the chain and the database (decisions 0094 and 0107). Whoever holds
 * the request then asks, each time it looks (`findOut`):
 * - the chain settled its salt as issued: recorded, once final;
 * - another request spent its salt: refused (`SaltReplayed`, 409 ALREADY_EXECUTED: the chain shows it executed);
 * - a transaction carrying it may still be mined (the journal): wait for it; the relayer's monitor sees it through;
 * - the chain cannot be read: wait;
 * - unspent, and nothing carrying it in flight: sent again with its signature, under the holder's fencing token.
 * Nothing else sends a request again: the relayer's monitor only sends a transaction's own bytes again or replaces
 * them on the same nonce (decision 0052), which never makes a second transaction of a request.
 */
import { Clock, Duration, Effect, Exit, Fiber, Layer, Metric, Option, Result } from "effect"
import type { Hex } from "viem"
import { type RequestError, SaltReplayed } from "../chain/ChainError.ts"
import { ChainGateway, type SettlementProgress } from "../chain/ChainGateway.ts"
import type { Settlement } from "../chain/Settlement.ts"
import type { Uint256String } from "../Evm.ts"
import { type ClaimedTypedData, ClaimLease, IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { finishPendingBlocks } from "../membership/BlockMember.ts"
import { finishPendingRemovals } from "../membership/RemoveMember.ts"
import { repeatQuietly } from "../Worker.ts"
import { type ExecutionRecords, recordsOf, settles } from "./ExecutionRecords.ts"
import { hold } from "./Holding.ts"
import { PaymentLedger } from "./PaymentLedger.ts"
import { sendToChain } from "./SendToChain.ts"

/** Requests whose transaction the chain refused (their claim released, nothing paid), by the refusal. */
export const paymentsFailed = Metric.counter("svc_payment_requests_failed_total", {
  description: "Signed payment requests the chain refused (nothing paid; the request may be sent again), by reason",
  incremental: true
})

/**
 * What becomes of a claim after each refusal (decision 0092), one decision per error, which the compiler holds to:
 * `release` when nothing can have been sent or the chain refused the request before spending its salt (the signer
 * may send it again); `recover` when something may be in flight or the salt is spent, so the chain must say what.
 */
export const claimAfter: { readonly [K in RequestError["_tag"]]: "release" | "recover" } = {
  ChainUnreachable: "release",
  RequestExpired: "release",
  InvalidSignature: "release",
  SignerNotAuthorised: "release",
  UnknownAccount: "release",
  InsufficientBalance: "release",
  InvalidRequest: "release",
  SettlementReverted: "release",
  SendOutcomeUnknown: "recover",
  SaltReplayed: "recover"
}

/**
 * Gives a refused request's claim back (its payments noted in flight go), so its signer may send it again: refused by
 * the chain, or before it was sent (`takeBeforeSend`).
 */
export const releaseClaim = (claimed: ClaimedTypedData, error: { readonly _tag: string }) =>
  Effect.gen(function* () {
    yield* PaymentLedger.use((ledger) => ledger.dropInFlight(claimed.salt, claimed.claim.token))
    yield* IssuedRequestStore.use((store) => store.release(claimed.salt, claimed.claim.token))
    yield* Metric.update(Metric.withAttributes(paymentsFailed, { reason: error._tag }), 1)
  })

/** Takes what `claimed` needs before a send (`ExecutionRecords.beforeSend`); refused, its claim is released. */
export const takeBeforeSend = (claimed: ClaimedTypedData, records: ExecutionRecords) =>
  Effect.tapError(records.beforeSend, (error) => releaseClaim(claimed, error))

/** What the chain and the journal say of a request's salt. */
export type Finding =
  | { readonly _tag: "Settled"; readonly settlement: Settlement }
  | { readonly _tag: "SpentOtherwise" }
  | { readonly _tag: "InFlight"; readonly transaction: Hex }
  | { readonly _tag: "Lost" }
  | { readonly _tag: "Unreachable"; readonly reason: string }

/**
 * Asks the chain, then the journal, what became of `claimed`'s salt. `Lost` only when the chain says the salt is
 * unspent and nothing carrying it is in flight: the one answer that sends a request again.
 */
export const findOut = Effect.fn("Recovery.findOut")(function* (claimed: ClaimedTypedData) {
  const chain = yield* ChainGateway
  const salt = BigInt(claimed.salt)
  const look = Effect.gen(function* () {
    const settlement = yield* chain.settlementOfSalt(claimed.bundle.typed_data.to, salt)
    if (settlement !== undefined) {
      return settles(claimed, settlement)
        ? ({ _tag: "Settled", settlement } as const)
        : ({ _tag: "SpentOtherwise" } as const)
    }
    const inFlight = yield* chain.inFlightOfSalt(salt)
    if (inFlight !== undefined) return { _tag: "InFlight", transaction: inFlight } as const
    // Spent, not final yet, and not in our journal: not lost either.
    if (yield* chain.isSaltUsed(salt)) return { _tag: "Unreachable", reason: "settled, not final yet" } as const
    return { _tag: "Lost" } as const
  })
  return yield* Effect.catchTag(
    look,
    "ChainUnreachable",
    (error): Effect.Effect<Finding> => Effect.succeed({ _tag: "Unreachable", reason: error.reason })
  ) as Effect.Effect<Finding>
})

/** How long the holder waits before it looks again: 1 s, doubling to 5 s. */
const lookAgainAfter = (looks: number) => Duration.millis(Math.min(5_000, 1_000 * 2 ** looks))

/** What recovery may do before it sends a request again (a restored embedded chain sets its clock back first). */
export interface RecoveryHooks {
  readonly beforeSendAgain?: ((claimed: ClaimedTypedData) => Effect.Effect<void>) | undefined
}

/**
 * The holder of `claimed` finds out what became of it and acts (see the module comment) until it is recorded or
 * refused: answers the recorded result; fails with the refusal (the claim released, or the salt spent otherwise).
 */
export const recover = Effect.fnUntraced(function* (
  claimed: ClaimedTypedData,
  records: ExecutionRecords,
  hooks: RecoveryHooks = {}
) {
  for (let looks = 0; ; looks++) {
    const finding = yield* findOut(claimed)
    switch (finding._tag) {
      case "Settled":
        return yield* records.record(finding.settlement)
      case "SpentOtherwise":
        yield* Effect.logWarning(`request ${claimed.salt}: its salt was spent by another request`)
        return yield* new SaltReplayed({ salt: claimed.salt })
      case "InFlight":
        yield* records.noteInFlight(finding.transaction)
        break
      case "Unreachable":
        break
      case "Lost": {
        yield* Effect.logInfo(`request ${claimed.salt}: the chain lacks it and nothing carries it: sent again`)
        yield* hooks.beforeSendAgain?.(claimed) ?? Effect.void
        yield* takeBeforeSend(claimed, records)
        const progress: SettlementProgress = { onSent: (hash) => Effect.asVoid(records.noteInFlight(hash)) }
        const sent = yield* Effect.result(sendToChain(claimed, claimed.signature as Hex, progress))
        if (Result.isSuccess(sent)) return yield* records.record(sent.success)
        if (claimAfter[sent.failure._tag] === "release") {
          yield* releaseClaim(claimed, sent.failure)
          return yield* Effect.fail(sent.failure)
        }
      }
    }
    yield* Effect.sleep(lookAgainAfter(looks))
  }
})

/**
 * Takes over up to `limit` requests whose holder's lease lapsed, oldest claim first, and recovers each on a fiber of
 * this process's `Executions`, holding it from then on; answers the salts taken over. Any number of processes may
 * sweep: `takeOver` gives each request to exactly one.
 */
export const recoverAbandoned = Effect.fn("Recovery.recoverAbandoned")(function* (limit = 20) {
  const store = yield* IssuedRequestStore
  const leaseMillis = yield* ClaimLease
  const now = yield* Clock.currentTimeMillis
  const taken: Array<Uint256String> = []
  for (const request of yield* store.abandoned(now, limit)) {
    const claimed = yield* store.takeOver(request.salt, now, now + leaseMillis)
    if (Option.isNone(claimed)) continue
    const records = yield* recordsOf(claimed.value)
    yield* hold(claimed.value, leaseMillis, recover(claimed.value, records).pipe(Effect.ignore))
    taken.push(request.salt)
  }
  return taken
})

/**
 * After a chain restored from an older save (start-up, the embedded node restarted): each request recorded executed at
 * or after `sinceMillis` whose salt the chain has not spent and that nothing in flight carries is reopened and sent
 * again (its payments keep their events), once the relayer sent its journaled transactions again; waits for each.
 * Answers how many were sent again.
 */
export const recoverLost = Effect.fn("Recovery.recoverLost")(function* (
  sinceMillis: number,
  hooks: RecoveryHooks = {}
) {
  const store = yield* IssuedRequestStore
  const leaseMillis = yield* ClaimLease
  const executed = yield* PaymentLedger.use((ledger) => ledger.executedSince(sinceMillis))
  const fibers = []
  for (const request of executed) {
    const now = yield* Clock.currentTimeMillis
    const lost = yield* findOut({
      ...request.issued,
      claim: { token: 0 as never, until: 0, claimedAt: request.claimedAt },
      signature: request.signature
    })
    if (lost._tag !== "Lost") continue
    const reopened = yield* store.reopen(request.salt, now, now + leaseMillis)
    if (Option.isNone(reopened)) continue
    const records = yield* recordsOf(reopened.value)
    fibers.push(yield* hold(reopened.value, leaseMillis, recover(reopened.value, records, hooks)))
  }
  for (const fiber of fibers) {
    const exit = yield* Fiber.await(fiber)
    if (Exit.isFailure(exit)) yield* Effect.logError("a request the restored chain lost was refused again", exit.cause)
  }
  return fibers.length
})

/**
 * The sweep every process with a chain runs: `recoverAbandoned`, then the removals and the blocks their process left
 * between the chain and the database (`finishPendingRemovals`, decision 0094; `finishPendingBlocks`, decision 0107),
 * every `every` (default 5 s), for the lifetime of the layer's scope.
 */
export const layer = (options: { readonly every?: Duration.Input } = {}) =>
  Layer.effectDiscard(
    repeatQuietly("recovery", Effect.all([recoverAbandoned(), finishPendingRemovals(), finishPendingBlocks()]), {
      every: options.every ?? Duration.seconds(5)
    }).pipe(Effect.forkScoped)
  )
