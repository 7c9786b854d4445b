/**
 * The instalment runner: pays each active schedule's next instalment once it is due (decisions 0111, 0112). Any number
 * of runners share the work: a schedule is leased to one at a time (`PayScheduleRepository.leaseDue`) under a fencing
 * token, renewed while the runner works (`keepRenewed`, `CLAIM_LEASE_MS`), every write under it names the token, and
 * the chain pays an instalment once whoever asks: a runner that died or was paused mid-instalment loses its lease, and
 * the next one finds the instalment paid on chain (and records it from the logs) or pays it. An instalment is settled once, in order: paid (its
 * payments `complete`, `payment.subscription.paid`), or missed once its validity ended unpaid (its payments `failed`,
 * `payment.failed` each). A runner that was down pays what came due meanwhile while it is still valid, and says so in
 * the log.
 */
import { Clock, DateTime, Duration, Effect, Layer, Option } from "effect"
import type { Hex } from "viem"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { InstalmentError } from "../chain/InstalmentError.ts"
import type { InstalmentSettlement } from "../chain/ScheduleSettlement.ts"
import { ClaimLease } from "../eip712/IssuedRequestStore.ts"
import type { DomainEvent } from "../event/EventEnvelope.ts"
import { payInvoices } from "../invoice/PayInvoices.ts"
import { keepRenewed } from "../Lease.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { invoiceOf, onchainIdOf, type Payment } from "../payment/Payment.ts"
import { chainFactsOf, paymentEventOf } from "../payment/PaymentEvents.ts"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import { isoOf } from "../Timestamp.ts"
import { teamAccountOf } from "../team/Team.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import { repeatQuietly } from "../Worker.ts"
import { cancelOnChain, endedStanding, reconcileCanceled, recordCanceled } from "./CancelSchedule.ts"
import { instalmentDueEvent, shortfallEvents } from "./CashRequirements.ts"
import { instalmentWindow } from "./Instalments.ts"
import {
  instalmentIdsOf,
  type PaySchedule,
  PayScheduleMachine,
  progressAfter,
  scheduleEventIdOf
} from "./PaySchedule.ts"
import { type LeasedSchedule, PayScheduleRepository } from "./PayScheduleRepository.ts"
import { scheduleEventOf } from "./ScheduleEvents.ts"

/** What became of one leased schedule's next instalment. */
export type InstalmentRun = "paid" | "missed" | "not_due" | "short" | "retry_later" | "canceled" | "lost"

/** Instalment `n`'s payments, one per payee, `complete` (paid by `settlement`) or `failed` (missed). */
const paymentsOf = (
  schedule: PaySchedule,
  n: number,
  state: "complete" | "failed",
  now: string,
  settlement?: InstalmentSettlement
): ReadonlyArray<Payment> => {
  const window = instalmentWindow(
    { firstPayAt: schedule.first_pay_at, interval: schedule.interval, validMinutes: schedule.valid_minutes },
    n
  )
  return schedule.payees.map((payee, index) => {
    const ids = instalmentIdsOf(schedule.nanoid, n, index)
    return {
      nanoid: ids.payment,
      group_nanoid: ids.group,
      // The member's invoice it pays part of (decision 0117), else one synthesized for the payment.
      invoice_nanoid: payee.invoice_nanoid ?? ids.invoice,
      ...(payee.invoice_nanoid === undefined ? {} : { pays_invoice: true as const }),
      team_nanoid: schedule.team_nanoid,
      payer_nanoid: schedule.signer_nanoid,
      recipient_nanoid: payee.recipient_nanoid,
      state,
      amount_cents: payee.amount_cents,
      currency_symbol: "USD",
      token: schedule.token,
      token_amount: payee.token_amount,
      token_decimals: schedule.token_decimals,
      pay_type: "2",
      pay_at_time: window.dueAt,
      valid_minutes: schedule.valid_minutes,
      onchain_id: onchainIdOf(ids.payment),
      group_onchain_id: schedule.onchain_id,
      data: "0x",
      salt: schedule.salt,
      invoice: invoiceOf(payee.invoice_description),
      creation_transaction: schedule.registration_transaction,
      ...(settlement === undefined ? {} : { process_transaction: settlement.transactionHash }),
      schedule_nanoid: schedule.nanoid,
      instalment: n,
      created_at: now,
      updated_at: now
    } satisfies Payment
  })
}

/**
 * Settles instalment `n` of the leased schedule: its payments and events, and the schedule moved on (completed after
 * its last), in one unit of work under the lease. A paid instalment whose schedule moved meanwhile (canceled after the
 * chain paid) is still recorded: the chain's payments are facts.
 */
const settle = Effect.fn("InstalmentRunner.settle")(function* (
  leased: LeasedSchedule,
  n: number,
  settlement: InstalmentSettlement | undefined,
  paid: boolean
) {
  const { lease, schedule } = leased
  const now = DateTime.formatIso(yield* DateTime.now)
  const payments = paymentsOf(schedule, n, paid ? "complete" : "failed", now, settlement)
  const last = n + 1 >= schedule.count
  const to = yield* PayScheduleMachine.transition(schedule.state, last ? "finish" : "settle").pipe(Effect.orDie)
  const moved: PaySchedule = {
    ...schedule,
    ...progressAfter(schedule, n),
    ...(paid ? { paid_count: schedule.paid_count + 1 } : { missed_count: schedule.missed_count + 1 }),
    state: to,
    updated_at: now
  }
  const chainId = (yield* ChainGateway).chainId
  const chain = settlement === undefined ? null : chainFactsOf(chainId, settlement)
  const team = yield* TeamRepository.use((teams) => teams.findById(schedule.team_nanoid))
  const scope = {
    team_nanoid: schedule.team_nanoid,
    ...(Option.isSome(team) ? { company_nanoid: team.value.company_nanoid } : {})
  }
  const events: Array<DomainEvent> = paid
    ? [
        yield* scheduleEventOf("payment.subscription.paid", moved, {
          instalment: { n, payments: payments.map((p) => p.nanoid) },
          chain
        })
      ]
    : yield* Effect.forEach(payments, (payment, index) =>
        Effect.map(paymentEventOf(scope, "payment.failed", payment), (event) => ({
          ...event,
          id: scheduleEventIdOf(schedule.nanoid, `payment.failed:${index}`, n)
        }))
      )
  const ledger = yield* PaymentLedger
  const repository = yield* PayScheduleRepository
  const patch = {
    paid_count: moved.paid_count,
    missed_count: moved.missed_count,
    next_instalment: moved.next_instalment,
    next_pay_at: moved.next_pay_at,
    updated_at: now
  }
  // A paid instalment pays its part of each invoice it names in the same unit, under the same lease (decision 0117).
  const paidBy = { transaction: settlement?.transactionHash ?? "", block_number: chain?.block_number ?? null }
  const record = Effect.andThen(ledger.recordPayments(payments), paid ? payInvoices(payments, paidBy) : Effect.void)
  const advanced = yield* withEvents(
    Effect.andThen(
      repository.transition(schedule.nanoid, { state: schedule.state, next_instalment: n }, to, patch, lease.token),
      record
    ),
    () => events
  ).pipe(Effect.option)
  if (Option.isSome(advanced)) return paid ? "paid" : "missed"
  if (!paid) return "lost"
  // The lease went (a cancel moved the schedule after the chain paid): the chain's payments are facts, recorded once by
  // their ids whoever records them, and their event's id comes from the chain's facts, so nothing is announced twice;
  // an invoice lists each payment once.
  yield* withEvents(record, () => events)
  return "lost"
})

/** Lets the schedule go until `retryAt` (epoch ms), for this holder's token only. */
const release = (leased: LeasedSchedule, retryAt: number) =>
  PayScheduleRepository.use((repository) => repository.release(leased.schedule.nanoid, leased.lease.token, retryAt))

/** Pays the leased schedule's next instalment on chain and records what became of it. */
export const runSchedule = Effect.fn("InstalmentRunner.runSchedule")(function* (leased: LeasedSchedule) {
  const { schedule } = leased
  const n = schedule.next_instalment
  const nowMillis = yield* Clock.currentTimeMillis
  const now = Math.floor(nowMillis / 1000)
  const team = yield* TeamRepository.use((teams) => teams.findById(schedule.team_nanoid))
  const account = Option.isSome(team) ? teamAccountOf(team.value) : undefined
  if (account === undefined) {
    yield* release(leased, nowMillis + 60_000)
    return "retry_later" as InstalmentRun
  }
  // Its signer's and payees' standing is checked as it runs, not only when they were removed: a removal that died
  // before it canceled the schedule leaves it to be canceled here, under this runner's lease, before anyone is paid.
  const ended = yield* endedStanding(schedule)
  if (ended === "wait") {
    yield* release(leased, nowMillis + 5_000)
    return "retry_later" as InstalmentRun
  }
  if (ended !== undefined) {
    const sent = yield* Effect.exit(cancelOnChain(schedule.team_nanoid, [schedule]))
    if (sent._tag === "Failure") {
      yield* release(leased, nowMillis + 10_000)
      return "retry_later" as InstalmentRun
    }
    return (
      (yield* recordCanceled(schedule, ended, leased.lease.token)) === undefined ? "lost" : "canceled"
    ) as InstalmentRun
  }
  const window = instalmentWindow(
    { firstPayAt: schedule.first_pay_at, interval: schedule.interval, validMinutes: schedule.valid_minutes },
    n
  )
  // Due a while ago: no runner was up (or none could pay it) since. Said once, when it is taken up again.
  if (now - window.dueAt > 60) {
    yield* Effect.logInfo(
      `pay schedule ${schedule.nanoid}: instalment ${n} came due at ${isoOf(window.dueAt * 1000)}, ${now - window.dueAt} s ago; ${now <= window.validUntil ? "paying it now, within its validity" : "its validity ended unpaid"}`
    )
  }
  const chain = yield* ChainGateway
  const id = schedule.onchain_id as Hex
  const outcome = yield* chain.executeInstalment(account, id, n).pipe(
    Effect.map((settlement) => ({ _tag: "Paid" as const, settlement })),
    Effect.catch((error: InstalmentError) => Effect.succeed({ _tag: "Refused" as const, error }))
  )
  if (outcome._tag === "Paid") return (yield* settle(leased, n, outcome.settlement, true)) as InstalmentRun
  switch (outcome.error._tag) {
    // Paid by an earlier run that died before recording it: the chain's logs say by which transaction.
    case "InstalmentAlreadyPaid": {
      const found = yield* chain
        .instalmentPaid(account, id, n, BigInt(schedule.registration_block))
        .pipe(Effect.orElseSucceed(() => undefined))
      return (yield* settle(leased, n, found, true)) as InstalmentRun
    }
    case "InstalmentValidityElapsed":
      return (yield* settle(leased, n, undefined, false)) as InstalmentRun
    // The chain's clock is behind ours: again once it is there.
    case "InstalmentNotDue":
      yield* release(leased, Math.max(nowMillis + 1_000, window.dueAt * 1000))
      return "not_due" as InstalmentRun
    case "ScheduleNotActive": {
      // Canceled on chain (its signer revoked, or an operator's cancel whose record was lost): recorded so.
      const signer = yield* MembershipRepository.use((m) => m.find(schedule.team_nanoid, schedule.signer_nanoid))
      const canceled = yield* recordCanceled(
        schedule,
        Option.isNone(signer) ? "signer_removed" : "team",
        leased.lease.token
      )
      return (canceled === undefined ? "lost" : "canceled") as InstalmentRun
    }
    // Beyond the balance: announced once, and tried again while it is valid (a deposit may come in time).
    case "InsufficientBalance": {
      const due = yield* instalmentDueEvent(schedule, n)
      yield* withEvents(Effect.void, () => due)
      yield* release(leased, nowMillis + 5_000)
      return "short" as InstalmentRun
    }
    default:
      yield* Effect.logWarning(`pay schedule ${schedule.nanoid}: instalment ${n} not paid: ${outcome.error._tag}`)
      yield* release(leased, nowMillis + 10_000)
      return "retry_later" as InstalmentRun
  }
})

/** Leases and runs due schedules until none is left (or `limit` ran); answers what became of each. */
export const runDueInstalments = Effect.fn("InstalmentRunner.runDueInstalments")(function* (limit = 100) {
  const repository = yield* PayScheduleRepository
  const leaseMillis = yield* ClaimLease
  const runs: Array<{ readonly schedule: PaySchedule; readonly n: number; readonly run: InstalmentRun }> = []
  while (runs.length < limit) {
    const nowMillis = yield* Clock.currentTimeMillis
    const leased = yield* repository.leaseDue({
      now: Math.floor(nowMillis / 1000),
      nowMillis,
      leaseUntil: nowMillis + leaseMillis
    })
    if (leased === undefined) break
    const nanoid = leased.schedule.nanoid
    // Renewed while it runs; once the store says another holder has it, stopped before its next write.
    const run = yield* keepRenewed({
      lease: `pay schedule ${nanoid}`,
      held: leased.lease,
      leaseMillis,
      renew: (until) => repository.renew(nanoid, leased.lease.token, until)
    })(runSchedule(leased)).pipe(Effect.catchTag("LeaseLost", () => Effect.succeed<InstalmentRun>("lost")))
    runs.push({ schedule: leased.schedule, n: leased.schedule.next_instalment, run })
  }
  return runs
})

/**
 * Announces each shortfall once: `payment.cash_requirement.created` for every team with an active schedule or a
 * registered intent whose obligations within its horizon exceed its balance. Answers how many teams fall short.
 */
export const watchCashRequirements = Effect.fn("InstalmentRunner.watchCashRequirements")(function* () {
  const scheduled = yield* PayScheduleRepository.use((repository) => repository.activeTeams)
  const intents = yield* PaymentLedger.use((ledger) => ledger.list({ states: ["intent", "scheduled"] }))
  const teams = [...new Set([...scheduled, ...intents.map((intent) => intent.team_nanoid)])]
  let short = 0
  for (const id of teams) {
    const team = yield* TeamRepository.use((repository) => repository.findById(id))
    if (Option.isNone(team)) continue
    const events = yield* shortfallEvents(team.value).pipe(Effect.orElseSucceed(() => []))
    if (events.length > 0) short++
    yield* withEvents(Effect.void, () => events)
  }
  return short
})

/**
 * The runner for the lifetime of the layer's scope: due instalments every `every` (1 s unless told, so an instalment
 * is paid within a second or two of its due time), the cash requirements every `watchEvery` (30 s), and the chain's
 * cancellations (`reconcileCanceled`: one read of the chain per active schedule) every `reconcileEvery` (10 min), each
 * first at once, so that a restart after a killed DELETE corrects its record at start.
 */
export const layer = (
  options: {
    readonly every?: Duration.Input
    readonly watchEvery?: Duration.Input
    readonly reconcileEvery?: Duration.Input
  } = {}
) =>
  Layer.effectDiscard(
    Effect.all(
      [
        repeatQuietly("instalment runner", runDueInstalments(), { every: options.every ?? Duration.seconds(1) }),
        repeatQuietly("cash requirements", watchCashRequirements(), {
          every: options.watchEvery ?? Duration.seconds(30)
        }),
        repeatQuietly("schedule cancellations", reconcileCanceled(), {
          every: options.reconcileEvery ?? Duration.minutes(10)
        })
      ],
      { concurrency: "unbounded", discard: true }
    ).pipe(Effect.forkScoped)
  )
