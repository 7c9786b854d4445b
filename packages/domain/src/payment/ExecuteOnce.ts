/**
 * Executing a signed request once across processes (decisions 0017, 0090, 0093), for every kind the service issues:
 * payment batches, instant payments and manager role grants.
 * - `executeOnce`: the claim of the salt, the wait for another holder (its result, its transaction in flight, a release
 *   or a lapsed lease, which it takes over) and the tries again;
 * - `settleHeld`: the holder's execution on a fiber of `Executions` under its renewed claim (the first send, or
 *   recovery), waited for `SettlementWait`: executed, or in flight (decision 0061).
 * What each kind writes is `ExecutionRecords.ts`'s; what follows an unknown outcome, `Recovery.ts`'s.
 */
import { Clock, Context, Duration, Effect, Fiber, Option, Ref, Result } from "effect"
import type { Hex } from "viem"
import type { SettlementProgress } from "../chain/ChainGateway.ts"
import type { Uint256String } from "../Evm.ts"
import { type ClaimedTypedData, ClaimLease, IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { authorizeSignedRequest, type SignedRequest } from "../eip712/SignedRequest.ts"
import { lookUntilFound } from "../StorageChanges.ts"
import { type ExecutionRecords, entriesOf, recordsOf } from "./ExecutionRecords.ts"
import { hold } from "./Holding.ts"
import { ExecutionInProgress } from "./PaymentErrors.ts"
import { type ExecutionResult, PaymentLedger } from "./PaymentLedger.ts"
import { claimAfter, recover, releaseClaim, takeBeforeSend } from "./Recovery.ts"
import { sendToChain } from "./SendToChain.ts"

/**
 * How long a request that finds another holder executing the same salt waits for its result: well inside the server's
 * request timeout (`REQUEST_TIMEOUT_MS`, 30 s by default), so the wait ends in its own answer (409
 * `EXECUTION_IN_PROGRESS`) rather than in the server's 503 for a request that ran too long. Longer than a claim's
 * lease, so a dead holder's request is taken over within the wait.
 */
const replayWaitMillis = 25_000

/**
 * How long a PUT that executes a signed request waits for its transaction to be final (ms; `SETTLEMENT_WAIT_MS`,
 * default 20 s, inside the server's 30 s request timeout). A transaction sent and not final by then is answered 202
 * with its hash while the execution goes on and records the result (decision 0061).
 */
export class SettlementWait extends Context.Reference<number>("@svc/domain/payment/SettlementWait", {
  defaultValue: () => 20_000
}) {}

/** What an execution answers: recorded (200), or its transaction sent and not final yet (202). */
export type Settled =
  | { readonly _tag: "Executed"; readonly result: ExecutionResult }
  | { readonly _tag: "InFlight"; readonly result: ExecutionResult }

/**
 * The holder's first send: recorded once final; a refusal releases the claim or goes to recovery, as `claimAfter`
 * decides for it.
 */
const sendFirst = Effect.fnUntraced(function* (claimed: ClaimedTypedData, records: ExecutionRecords) {
  yield* takeBeforeSend(claimed, records)
  const progress: SettlementProgress = { onSent: (hash) => Effect.asVoid(records.noteInFlight(hash)) }
  const sent = yield* Effect.result(sendToChain(claimed, claimed.signature as Hex, progress))
  if (Result.isSuccess(sent)) return yield* records.record(sent.success)
  if (claimAfter[sent.failure._tag] === "release") {
    yield* releaseClaim(claimed, sent.failure)
    return yield* Effect.fail(sent.failure)
  }
  return yield* recover(claimed, records)
})

/**
 * Holds `claimed` (sending it first, or recovering it after a take-over) on a fiber of `Executions`, and waits for it
 * `SettlementWait`: executed, or, past the wait, the transaction noted in flight (each version noted is also what
 * replays answer) while the execution goes on by itself. Not sent yet at the bound (fees, a busy key): the wait goes
 * on. A holder that lost its claim meanwhile fails with `LeaseLost`.
 */
export const settleHeld = Effect.fnUntraced(function* (claimed: ClaimedTypedData, start: "send" | "recover") {
  const recorded = yield* recordsOf(claimed)
  const sent = yield* Ref.make<string | undefined>(undefined)
  const records: ExecutionRecords = {
    ...recorded,
    noteInFlight: (transaction) => Effect.andThen(Ref.set(sent, transaction), recorded.noteInFlight(transaction))
  }
  const work = start === "send" ? sendFirst(claimed, records) : recover(claimed, records)
  const fiber = yield* hold(
    claimed,
    yield* ClaimLease,
    work.pipe(
      Effect.tapCause((cause) => Effect.logDebug(`the execution of request ${claimed.salt} ended unrecorded`, cause))
    )
  )
  const wait = Duration.millis(yield* SettlementWait)
  while (true) {
    const done = yield* Fiber.await(fiber).pipe(Effect.timeoutOption(wait))
    if (Option.isSome(done)) return { _tag: "Executed", result: yield* Fiber.join(fiber) } as Settled
    const transaction = yield* Ref.get(sent)
    if (transaction !== undefined) {
      return { _tag: "InFlight", result: { transaction, payments: entriesOf(claimed) } } as Settled
    }
  }
})

/** What waiting for another holder of a claim ends with. */
type Attempt =
  | { readonly _tag: "Result"; readonly result: ExecutionResult }
  | { readonly _tag: "InFlight"; readonly result: ExecutionResult }
  | { readonly _tag: "Retry" }
  | { readonly _tag: "Abandoned" }

/**
 * Waits for whoever holds the claim of `salt`: its result, its transaction in flight, a release (retry), or a lapsed
 * lease (abandoned); `ExecutionInProgress` after `replayWaitMillis`.
 */
const awaitOutcome = (salt: Uint256String) =>
  PaymentLedger.use((ledger) => ledger.outcome(salt)).pipe(
    Effect.orDie,
    Effect.flatMap((outcome) =>
      Effect.map(Clock.currentTimeMillis, (now): Attempt | undefined => {
        if (outcome.state === "executed") return { _tag: "Result", result: outcome.result }
        if (outcome.state === "issued") return { _tag: "Retry" }
        if (outcome.leaseUntil <= now) return { _tag: "Abandoned" }
        if (outcome.inFlight !== undefined) return { _tag: "InFlight", result: outcome.inFlight }
        return undefined
      })
    ),
    // Looked at again when a request's execution changes (StorageChanges), or every 100 ms when no change is told.
    (look) =>
      lookUntilFound(look, { topic: "requests", every: Duration.millis(100), streamingEvery: Duration.seconds(1) }),
    Effect.timeoutOption(Duration.millis(replayWaitMillis)),
    Effect.flatMap((attempt) =>
      attempt._tag === "Some" ? Effect.succeed(attempt.value) : Effect.fail(new ExecutionInProgress({ salt }))
    )
  )

/** A held execution's answer; `undefined` when its holder lost the claim meanwhile (the caller looks again). */
const unlessLost = <E, R>(settled: Effect.Effect<Settled, E, R>) =>
  Effect.catchTag(settled as Effect.Effect<Settled, E | { readonly _tag: "LeaseLost" }, R>, "LeaseLost", () =>
    Effect.succeed(undefined)
  ) as Effect.Effect<Settled | undefined, Exclude<E, { readonly _tag: "LeaseLost" }>, R>

/**
 * Executes a signed request once, whichever process or request gets to it first: the claim's winner holds it and
 * sends it; every other request waits for it and answers what it recorded (or its transaction in flight); a request
 * whose holder's lease lapsed is taken over and recovered. Up to three turns (a holder that released its claim after a
 * refusal lets the next request claim it and meet the same refusal); then `ExecutionInProgress`.
 */
export const executeOnce = Effect.fn("ExecuteOnce.executeOnce")(function* (request: SignedRequest) {
  const salt = request.typedData.salt
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = yield* authorizeSignedRequest(request).pipe(
      Effect.map((claimed) => ({ _tag: "Claimed" as const, claimed })),
      Effect.catchTag("AlreadyClaimed", () => Effect.succeed({ _tag: "Taken" as const })),
      // An expired request that already executed still answers its result.
      Effect.catchTag("ExpiredTypedData", (error) =>
        Effect.flatMap(Effect.orDie(PaymentLedger.use((ledger) => ledger.outcome(salt))), (outcome) =>
          outcome.state === "issued" ? Effect.fail(error) : Effect.succeed({ _tag: "Taken" as const })
        )
      )
    )
    if (claim._tag === "Claimed") {
      const settled = yield* unlessLost(settleHeld(claim.claimed, "send"))
      if (settled !== undefined) return settled
      continue
    }
    const waited = yield* awaitOutcome(salt)
    switch (waited._tag) {
      case "Result":
        return { _tag: "Executed", result: waited.result } as Settled
      case "InFlight":
        return { _tag: "InFlight", result: waited.result } as Settled
      case "Abandoned": {
        // Its holder died or was paused past its lease: taken over at once, and recovered by this process.
        const now = yield* Clock.currentTimeMillis
        const until = now + (yield* ClaimLease)
        const taken = yield* IssuedRequestStore.use((store) => store.takeOver(salt, now, until))
        if (Option.isSome(taken)) {
          const settled = yield* unlessLost(settleHeld(taken.value, "recover"))
          if (settled !== undefined) return settled
        }
        break
      }
      case "Retry":
        break
    }
  }
  return yield* new ExecutionInProgress({ salt })
})
