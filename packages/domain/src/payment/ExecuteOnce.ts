/**
 * Executing a signed request once across processes (decision 0017), for every kind the service issues: payment
 * batches, instant payments and manager role grants. One module holds what they share:
 * - `sendToChain`: the one switch from an issued request's kind to the forwarder's entry point (the chain's relayer
 *   journals the transaction before it is sent, decision 0052);
 * - `executeOnce`: the claim of the salt, the wait for another holder (its result, its transaction in flight, a release
 *   or an expired lease) and the tries again;
 * - `releaseOnRefusal`: what a refusal of the chain leaves of the claim;
 * - `recordSurely`: a holder's record tried again when the storage fails it for a moment.
 * Each kind says only what is its own: what the holder records, what a replay answers, and what becomes of a request
 * whose holder died.
 */
import { Clock, Context, Duration, Effect, Fiber, Option, Ref } from "effect"
import type { Hex } from "viem"
import type { RequestError } from "../chain/ChainError.ts"
import { ChainGateway, type SettlementProgress } from "../chain/ChainGateway.ts"
import { paymentRequestOf, paymentsRequestOf, rolesRequestOf } from "../chain/ForwardRequest.ts"
import type { RolesSettlement, Settlement } from "../chain/Settlement.ts"
import type { Uint256String } from "../Evm.ts"
import type { IssuedPayment, IssuedRoles, IssuedTypedData } from "../eip712/IssuedRequestStore.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { authorizeSignedRequest, type SignedRequest } from "../eip712/SignedRequest.ts"
import { lookUntilFound } from "../StorageChanges.ts"
import { ExecutionInProgress } from "./PaymentErrors.ts"
import { type ExecutionResult, PaymentLedger } from "./PaymentLedger.ts"

/**
 * How long a request that finds another holder executing the same salt waits for its result: well inside the server's
 * request timeout (`REQUEST_TIMEOUT_MS`, 30 s by default), so the wait ends in its own answer (409 `ALREADY_EXECUTED`,
 * "still executing") rather than in the server's 503 for a request that ran too long.
 */
const replayWaitMillis = 20_000

/**
 * How long a PUT that executes a signed request waits for its transaction to be final (ms; `SETTLEMENT_WAIT_MS`,
 * default 20 s, inside the server's 30 s request timeout). A transaction sent and not final by then is answered 202
 * with its hash while the execution goes on and records the result (decision 0061).
 */
export class SettlementWait extends Context.Reference<number>("@svc/domain/payment/SettlementWait", {
  defaultValue: () => 20_000
}) {}

/** What waiting `SettlementWait` for an execution ends with: its result, or its transaction in flight. */
export type Settled<A> =
  | { readonly _tag: "Done"; readonly value: A }
  | { readonly _tag: "InFlight"; readonly transaction: string }

/**
 * Runs `execution` on a fiber of its own, handing it the progress it reports to: its result if it ends within
 * `SettlementWait`; past that, once its transaction is sent, the hash in flight (each version sent is also given to
 * `noteSent`, for replays), while the execution goes on by itself and records its result when final. Not sent yet at
 * the bound (fees, a busy key): the wait goes on.
 */
export const settleWithin = Effect.fnUntraced(function* <A, E, R>(
  execution: (progress: SettlementProgress) => Effect.Effect<A, E, R>,
  noteSent: (transaction: string) => Effect.Effect<unknown>,
  label: string
) {
  const sent = yield* Ref.make<string | undefined>(undefined)
  const progress: SettlementProgress = {
    onSent: (transaction) => Effect.asVoid(Effect.andThen(Ref.set(sent, transaction), noteSent(transaction)))
  }
  const fiber = yield* Effect.forkDetach(
    execution(progress).pipe(
      Effect.tapCause((cause) => Effect.logWarning(`the execution of ${label} ended without a result`, cause))
    )
  )
  const wait = Duration.millis(yield* SettlementWait)
  while (true) {
    const done = yield* Fiber.await(fiber).pipe(Effect.timeoutOption(wait))
    if (Option.isSome(done)) return { _tag: "Done", value: yield* Fiber.join(fiber) } as Settled<A>
    const transaction = yield* Ref.get(sent)
    if (transaction !== undefined) return { _tag: "InFlight", transaction } as Settled<A>
  }
})

/** How many times a record the storage failed to take is tried again (`recordSurely`), 100 ms apart and doubling. */
const recordRetries = 5

/**
 * `record` (what the holder writes once its request settled), tried again when it dies: storage failures are defects,
 * and one that lasts a moment (a database connection reset) would otherwise leave a settled request unrecorded, its
 * replays answered "in flight", until its claim's lease expires. Records are safe to try again: only the claim's
 * holder records, once. Five more tries over about 3 s; then the defect, as before.
 */
export const recordSurely = <A, E, R>(record: Effect.Effect<A, E, R>, attempt = 0): Effect.Effect<A, E, R> =>
  Effect.catchDefect(record, (defect) =>
    attempt >= recordRetries
      ? Effect.die(defect)
      : Effect.logWarning("a record the storage failed to take is tried again", defect).pipe(
          Effect.andThen(Effect.sleep(Duration.millis(100 * 2 ** attempt))),
          Effect.andThen(recordSurely(record, attempt + 1))
        )
  )

/** Sends an issued request with its signature to the forwarder entry point of its kind. */
export function sendToChain(
  issued: IssuedPayment,
  signature: Hex,
  progress?: SettlementProgress
): Effect.Effect<Settlement, RequestError, ChainGateway>
export function sendToChain(
  issued: IssuedRoles,
  signature: Hex,
  progress?: SettlementProgress
): Effect.Effect<RolesSettlement, RequestError, ChainGateway>
export function sendToChain(
  issued: IssuedTypedData,
  signature: Hex,
  progress?: SettlementProgress
): Effect.Effect<Settlement | RolesSettlement, RequestError, ChainGateway>
export function sendToChain(
  issued: IssuedTypedData,
  signature: Hex,
  progress?: SettlementProgress
): Effect.Effect<Settlement | RolesSettlement, RequestError, ChainGateway> {
  return ChainGateway.use((chain): Effect.Effect<Settlement | RolesSettlement, RequestError> => {
    switch (issued.kind) {
      case "batch":
        return chain.executePayments({ request: paymentsRequestOf(issued.bundle.typed_data), signature }, progress)
      case "instant":
        return chain.executePayment({ request: paymentRequestOf(issued.bundle.typed_data), signature }, progress)
      case "roles":
        return chain.executeRoles({ request: rolesRequestOf(issued.bundle.typed_data), signature }, progress)
    }
  })
}

/**
 * What a refusal of the chain leaves of the claim: released when nothing can have been sent or the chain refused the
 * request before spending its salt, so the signer may retry (and the payments noted in flight go); kept when a
 * transaction may have left (`nothingSent` absent: its lease lets a later request find out, decision 0037) or the salt
 * is spent (`SaltReplayed`).
 */
export const releaseOnRefusal = (salt: Uint256String, claimToken: string, error: RequestError) =>
  (error._tag === "ChainUnavailable" && error.nothingSent !== true) || error._tag === "SaltReplayed"
    ? Effect.void
    : Effect.andThen(
        PaymentLedger.use((ledger) => ledger.dropInFlight(salt, claimToken)),
        IssuedRequestStore.use((store) => store.release(salt, claimToken))
      )

/** What waiting for another holder of a claim ends with. */
export type Attempt =
  | { readonly _tag: "Result"; readonly result: ExecutionResult }
  | { readonly _tag: "InFlight"; readonly result: ExecutionResult }
  | { readonly _tag: "Retry" }
  | { readonly _tag: "Abandoned" }

/**
 * Waits for whoever holds the claim of `salt`: its result, its transaction in flight, a release (retry), or an
 * expired lease (abandoned); `ExecutionInProgress` after `replayWaitMillis`.
 */
export const awaitOutcome = (salt: Uint256String) =>
  PaymentLedger.use((ledger) => ledger.outcome(salt)).pipe(
    Effect.orDie,
    Effect.flatMap((outcome) =>
      Effect.map(Clock.currentTimeMillis, (now): Attempt | undefined => {
        if (outcome.state === "executed") return { _tag: "Result", result: outcome.result }
        if (outcome.state === "issued") return { _tag: "Retry" }
        if (outcome.leaseUntil < now) return { _tag: "Abandoned" }
        if (outcome.inFlight !== undefined) return { _tag: "InFlight", result: outcome.inFlight }
        return undefined
      })
    ),
    // Looked at again when a request's execution changes (StorageChanges), or every 100 ms when no change is told.
    (look) =>
      lookUntilFound(look, { topic: "requests", every: Duration.millis(100), streamingEvery: Duration.seconds(1) }),
    Effect.timeoutOption(Duration.millis(replayWaitMillis)),
    Effect.flatMap((attempt) =>
      attempt._tag === "Some"
        ? Effect.succeed(attempt.value)
        : Effect.fail(new ExecutionInProgress({ salt, message: "The request is still executing; retry later" }))
    )
  )

/** The claim a holder works under. */
export interface Claim {
  readonly claimToken: string
  /** When it was claimed (epoch ms). */
  readonly claimedAt: number
}

/** What one kind of signed request does at each turn of `executeOnce`. */
export interface ExecuteOnceSteps<A, E, R> {
  /** The signed request as the client sent it (checked against what was issued, then its salt claimed). */
  readonly request: SignedRequest
  /** The claim won: send it to the chain, record it, answer. */
  readonly execute: (claim: Claim) => Effect.Effect<A, E, R>
  /** Another holder recorded it (or it expired after executing): the answer from the recorded result. */
  readonly recorded: (result: ExecutionResult) => Effect.Effect<A, E, R>
  /** Another holder's transaction is in flight: the answer meanwhile (default: as recorded). */
  readonly inFlight?: ((result: ExecutionResult) => Effect.Effect<A, E, R>) | undefined
  /** Its holder died (its lease expired): take over and answer, or `undefined` to try the claim again. */
  readonly abandoned: () => Effect.Effect<A | undefined, E, R>
}

/**
 * Executes a signed request once, whichever process or request gets to it first: the claim's winner runs `execute`;
 * every other request waits for it and answers from what it recorded. Up to three turns (a holder that released its
 * claim after a refusal lets the next request claim it and meet the same refusal); then `ExecutionInProgress`.
 */
export const executeOnce = Effect.fnUntraced(function* <A, E, R>(steps: ExecuteOnceSteps<A, E, R>) {
  const salt = steps.request.typedData.salt
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = yield* authorizeSignedRequest(steps.request).pipe(
      Effect.map((claimed) => ({ _tag: "Claimed" as const, claim: claimed as Claim })),
      Effect.catchTag("AlreadyClaimed", () => Effect.succeed({ _tag: "Taken" as const })),
      // An expired request that already executed still answers its result.
      Effect.catchTag("ExpiredTypedData", (error) =>
        Effect.flatMap(Effect.orDie(PaymentLedger.use((ledger) => ledger.outcome(salt))), (outcome) =>
          outcome.state === "issued" ? Effect.fail(error) : Effect.succeed({ _tag: "Taken" as const })
        )
      )
    )
    if (claim._tag === "Claimed") return yield* steps.execute(claim.claim)
    const waited = yield* awaitOutcome(salt)
    switch (waited._tag) {
      case "Result":
        return yield* steps.recorded(waited.result)
      case "InFlight":
        return yield* (steps.inFlight ?? steps.recorded)(waited.result)
      case "Abandoned": {
        const answer = yield* steps.abandoned()
        if (answer !== undefined) return answer
        break
      }
      case "Retry":
        break
    }
  }
  return yield* new ExecutionInProgress({ salt, message: "The request is being executed by another request" })
})
