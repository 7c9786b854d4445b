/**
 * The intent runner: executes registered intents (`pay_now` false) once their `pay_at_time` has come. Any number of
 * runners share the work: each intent is leased to one runner at a time by a conditional update in the ledger, and
 * the chain refuses a second execution of an intent, so none is paid twice (docs/decisions/0018).
 */
import { Clock, DateTime, Duration, Effect, Layer } from "effect"
import type { IntentError } from "../chain/ChainError.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { ChainFacts } from "../event/EventPayload.ts"
import { payInvoices } from "../invoice/PayInvoices.ts"
import type { FencingToken } from "../Lease.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { intentDueEvent } from "../schedule/CashRequirements.ts"
import { teamAccountOf } from "../team/Team.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import { repeatQuietly } from "../Worker.ts"
import { cancelPayment } from "./IntentCancellation.ts"
import type { Payment } from "./Payment.ts"
import { chainFactsOf, paymentEventOf } from "./PaymentEvents.ts"
import { payingRoles } from "./PaymentExecution.ts"
import { PaymentLedger, type PaymentPatch } from "./PaymentLedger.ts"
import { PaymentMachine, type PaymentState, type PaymentTrigger, paymentTriggerEvents } from "./PaymentMachine.ts"

/** How long a runner holds an intent before another may retry it (a chain call takes seconds at most). */
export const intentLeaseMillis = 60_000

/** What became of one leased intent. */
export type IntentRun = "complete" | "failed" | "not_due" | "retry_later" | "lost" | "canceled"

/** The event a trigger publishes, if any. */
const eventOfTrigger: Partial<
  Record<PaymentTrigger, (typeof paymentTriggerEvents)[keyof typeof paymentTriggerEvents]>
> = paymentTriggerEvents

/**
 * Moves the leased (`scheduled`) payment by `triggers`, the state machine's way (an illegal sequence is a defect), one
 * move of the table at a time in one unit of work, with the event of its last trigger, under the lease's `token`;
 * `false` when this runner no longer holds it.
 */
const move = (
  token: FencingToken,
  payment: Payment,
  triggers: ReadonlyArray<PaymentTrigger>,
  patch: PaymentPatch = {},
  chain: ChainFacts | null = null
) =>
  Effect.gen(function* () {
    const states: Array<PaymentState> = ["scheduled"]
    for (const trigger of triggers) {
      states.push(yield* PaymentMachine.transition(states.at(-1) as PaymentState, trigger).pipe(Effect.orDie))
    }
    const to = states.at(-1) as PaymentState
    const last = triggers.at(-1)
    const event = last === undefined ? undefined : eventOfTrigger[last]
    const team = yield* TeamRepository.use((t) => t.findById(payment.team_nanoid))
    const now = DateTime.formatIso(yield* DateTime.now)
    const moved: Payment = { ...payment, ...patch, state: to, updated_at: now }
    const scope = {
      team_nanoid: payment.team_nanoid,
      ...(team._tag === "Some" ? { company_nanoid: team.value.company_nanoid } : {})
    }
    const events = event === undefined ? [] : [yield* paymentEventOf(scope, event, moved, chain)]
    const moves = PaymentLedger.use((ledger) =>
      Effect.forEach(states.slice(1), (next, index) =>
        ledger.transition(
          payment.nanoid,
          states[index] as PaymentState,
          next,
          index === states.length - 2 ? { ...patch, updated_at: now } : { updated_at: now },
          token
        )
      )
    )
    // A completed intent pays the invoice it names in the same unit, under the same lease (issue 38).
    const paidBy = { transaction: moved.process_transaction ?? "", block_number: chain?.block_number ?? null }
    const paid = to === "complete" ? Effect.andThen(moves, payInvoices([moved], paidBy)) : moves
    return yield* withEvents(paid, () => events).pipe(
      Effect.as(true),
      Effect.catchTag("StaleState", () => Effect.succeed(false)),
      Effect.orDie
    )
  })

/** Executes one leased intent on chain and records the outcome, under its lease's `token`. */
export const runIntent = Effect.fn("IntentRunner.runIntent")(function* (payment: Payment, token: FencingToken) {
  const chain = yield* ChainGateway
  const team = yield* TeamRepository.use((t) => t.findById(payment.team_nanoid))
  const account = team._tag === "Some" ? teamAccountOf(team.value) : undefined
  if (account === undefined) return (yield* move(token, payment, ["expire"])) ? "failed" : "lost"
  // Its signer's authority is checked as it runs, not only as it was registered: a removed member's intent is
  // canceled, never paid (removal cancels those not yet taken; this catches one a runner held meanwhile).
  const membership = yield* MembershipRepository.use((m) => m.find(payment.team_nanoid, payment.payer_nanoid))
  // Neither a blocked signer's intent nor one paying a blocked member is paid (decision 0107).
  const paid = payment.recipient_nanoid
  const recipient =
    paid === undefined ? undefined : yield* MembershipRepository.use((m) => m.find(payment.team_nanoid, paid))
  if (
    membership._tag === "None" ||
    !payingRoles.includes(membership.value.role) ||
    membership.value.block !== undefined ||
    (recipient?._tag === "Some" && recipient.value.block !== undefined)
  ) {
    return (yield* cancelPayment(payment, "scheduled", token)) ? "canceled" : "lost"
  }
  const outcome = yield* chain.executeIntent(account, payment.onchain_id).pipe(
    Effect.map((settlement) => ({ _tag: "Settled" as const, settlement })),
    Effect.catch((error: IntentError) => Effect.succeed({ _tag: "Refused" as const, error }))
  )
  let run: IntentRun
  if (outcome._tag === "Settled") {
    const moved = yield* move(
      token,
      payment,
      ["submit", "confirm"],
      { process_transaction: outcome.settlement.transactionHash },
      chainFactsOf(chain.chainId, outcome.settlement)
    )
    run = moved ? "complete" : "lost"
  } else {
    switch (outcome.error._tag) {
      // Executed by an earlier run that died before recording it: the chain is the truth.
      case "IntentAlreadyExecuted":
        run = (yield* move(token, payment, ["submit", "confirm"])) ? "complete" : "lost"
        break
      case "IntentValidityElapsed":
      case "IntentNotFound":
        run = (yield* move(token, payment, ["expire"])) ? "failed" : "lost"
        break
      // The chain's clock is behind ours: hand it back as an intent for a later pass.
      case "IntentNotDue":
        run = (yield* move(token, payment, ["defer"])) ? "not_due" : "lost"
        break
      // Beyond the balance: announced once (issue 37), and tried again while valid (a deposit may come in time).
      case "InsufficientBalance": {
        const due = yield* intentDueEvent(payment).pipe(Effect.orElseSucceed(() => []))
        yield* withEvents(Effect.void, () => due)
        yield* Effect.logWarning(`intent ${payment.nanoid} not executed: beyond the balance`)
        run = "retry_later"
        break
      }
      // Revert or node trouble: the lease expires and a later pass retries within the validity window.
      default:
        yield* Effect.logWarning(`intent ${payment.nanoid} not executed: ${outcome.error._tag}`)
        run = "retry_later"
    }
  }
  return run
})

/** Leases and runs due intents until none is left (or `limit` ran); answers what became of each. */
export const runDueIntents = Effect.fn("IntentRunner.runDueIntents")(function* (limit = 100) {
  const ledger = yield* PaymentLedger
  const runs: Array<{ readonly payment: Payment; readonly run: IntentRun }> = []
  while (runs.length < limit) {
    const nowMillis = yield* Clock.currentTimeMillis
    const leased = yield* ledger.leaseDueIntent({
      now: Math.floor(nowMillis / 1000),
      nowMillis,
      leaseUntil: nowMillis + intentLeaseMillis
    })
    if (leased === undefined) break
    runs.push({ payment: leased.payment, run: yield* runIntent(leased.payment, leased.lease.token) })
  }
  return runs
})

/** A runner polling every `every` for due intents, for the lifetime of the layer's scope. */
export const layer = (options: { readonly every?: Duration.Input } = {}) =>
  Layer.effectDiscard(
    repeatQuietly("intent runner", runDueIntents(), { every: options.every ?? Duration.seconds(5) }).pipe(
      Effect.forkScoped
    )
  )
