/**
 * Executing signed payments (PUT /v2/payments): the signer's right to pay for the team, the check of the signed
 * request, one claim of the salt across replicas, settlement through the chain, and the payments with their events
 * recorded in one step. A replay, or a second replica receiving the same request, answers the first result; a
 * request the chain executed but whose result was never recorded is reconciled from the chain (docs/decisions/0017).
 */
import { Array as Arr, Clock, DateTime, Effect, Exit, Metric, Option } from "effect"
import type { Hex } from "viem"
import type { RequestError } from "../chain/ChainError.ts"
import { ChainGateway, type SettlementProgress } from "../chain/ChainGateway.ts"
import type { Settlement } from "../chain/Settlement.ts"
import { TransactionJournal } from "../chain/TransactionJournal.ts"
import type { WalletAddress } from "../Evm.ts"
import type { Claimed, IssuedPayment } from "../eip712/IssuedRequestStore.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import type { PaymentEntry } from "../eip712/TypedData.ts"
import { holdInvoices, payInvoices } from "../invoice/PayInvoices.ts"
import { InsufficientPermissions } from "../membership/MembershipErrors.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import type { Role } from "../membership/Role.ts"
import { isoOf } from "../Timestamp.ts"
import type { Team } from "../team/Team.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { User } from "../user/User.ts"
import { UserRepository } from "../user/UserRepository.ts"
import { executeOnce, recordSurely, releaseOnRefusal, sendToChain, settleWithin } from "./ExecuteOnce.ts"
import { sameBody } from "./IssuedPayments.ts"
import { type Payment, usdcDecimals } from "./Payment.ts"
import { ExecutionBodyMismatch, ExecutionInProgress } from "./PaymentErrors.ts"
import { chainFactsOf, executionEventsOf } from "./PaymentEvents.ts"
import { type AbandonedRequest, type ExecutionResult, executionLeaseMillis, PaymentLedger } from "./PaymentLedger.ts"
import { initialPaymentState, PaymentMachine, type PaymentState } from "./PaymentMachine.ts"
import type { ExecutePaymentsRequest } from "./PaymentRequests.ts"

/** Payments executed on chain and recorded (`pay_now`: paid now, or registered as intents). */
export const paymentsExecuted = Metric.counter("svc_payments_executed_total", {
  description: "Payments executed on chain and recorded, by pay_now",
  incremental: true
})

/** Requests whose transaction the chain refused (their salt released, nothing paid), by the refusal. */
export const paymentsFailed = Metric.counter("svc_payment_requests_failed_total", {
  description: "Signed payment requests the chain refused (nothing paid; the request may be sent again), by reason",
  incremental: true
})

/** From the claim of a signed request (its PUT) to its settlement recorded, final on chain. */
export const settlementSeconds = Metric.histogram("svc_settlement_seconds", {
  description: "Time from a PUT /v2/payments claiming its request to its transaction final and recorded",
  boundaries: [0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300]
})

/** Roles whose wallet may sign payments for a team (the forwarder's rule). */
export const payingRoles: ReadonlyArray<Role> = ["team_admin", "team_finance_admin"]

/** What PUT /v2/payments answers: the result; `inFlight` when its transaction is sent and not final yet (202). */
export type ExecutionAnswer = ExecutionResult & { readonly inFlight?: true | undefined }

/** The user whose wallet is `signer`, when it may pay for `team`. */
const payingSigner = Effect.fn("PaymentExecution.payingSigner")(function* (team: Team, signer: WalletAddress) {
  const user = yield* UserRepository.use((u) => u.findByWallet(signer))
  if (user._tag === "None") {
    return yield* new InsufficientPermissions({ message: "The signer is not a member of the team" })
  }
  const membership = yield* MembershipRepository.use((m) => m.find(team.nanoid, user.value.nanoid))
  if (membership._tag === "None" || !payingRoles.includes(membership.value.role)) {
    return yield* new InsufficientPermissions({ message: "The signer may not pay for this team" })
  }
  return user.value
})

/** The signed payment entries of an issued request, in request order. */
const entriesOf = (issued: IssuedPayment): ReadonlyArray<PaymentEntry> =>
  issued.kind === "batch" ? issued.bundle.typed_data.data.payments : [issued.bundle.typed_data.data]

/**
 * The settlement the chain shows for the salt of `issued` on the team's account, when it settled exactly the issued
 * payments (ids and amounts, in order); `undefined` when it shows none, or another request spent the salt.
 */
const settlementOnChain = Effect.fn("PaymentExecution.settlementOnChain")(function* (issued: IssuedPayment) {
  const settlement = yield* ChainGateway.use((chain) =>
    chain.settlementOfSalt(issued.bundle.typed_data.to, BigInt(issued.salt))
  ).pipe(Effect.orDie)
  const entries = entriesOf(issued)
  const same =
    settlement !== undefined &&
    settlement.payments.length === entries.length &&
    settlement.payments.every(
      (outcome, index) =>
        outcome.id.toLowerCase() === entries[index]?.id.toLowerCase() &&
        outcome.amount === BigInt(entries[index]?.amount ?? -1)
    )
  return same ? settlement : undefined
})

/**
 * What a refusal of the chain leaves (`releaseOnRefusal`), and for a `SaltReplayed` (an earlier copy of this request
 * went through, say a relayer retry) what that copy settled.
 */
const afterRefusal =
  (issued: Claimed<IssuedPayment>) =>
  (error: RequestError): Effect.Effect<Settlement, RequestError, ChainGateway | IssuedRequestStore | PaymentLedger> =>
    error._tag === "SaltReplayed"
      ? Effect.flatMap(settlementOnChain(issued), (settlement) =>
          settlement === undefined ? Effect.fail(error) : Effect.succeed(settlement)
        )
      : Effect.andThen(
          Effect.andThen(
            releaseOnRefusal(issued.salt, issued.claimToken, error),
            Metric.update(Metric.withAttributes(paymentsFailed, { reason: error._tag }), 1)
          ),
          Effect.fail(error)
        )

/** Sends the signed request to the chain. */
const settleOnChain = Effect.fn("PaymentExecution.settleOnChain")(function* (
  issued: Claimed<IssuedPayment>,
  signature: Hex,
  progress?: SettlementProgress
) {
  return yield* Effect.catch(sendToChain(issued, signature, progress), afterRefusal(issued))
})

/**
 * The payments of a claimed request in `state`, created (and paid, when paid now) by `transaction`. They date from the
 * claim, so the rows listed while the transaction is in flight and those recorded once it is final agree.
 */
const paymentsOf = (
  team: Team,
  payer: User,
  issued: Claimed<IssuedPayment>,
  state: PaymentState,
  transaction: string,
  updatedAt: string
): ReadonlyArray<Payment> => {
  const request = issued.request
  return Arr.zip(request.payments, entriesOf(issued)).map(
    ([planned, entry]): Payment => ({
      nanoid: planned.nanoid,
      group_nanoid: request.group_nanoid,
      invoice_nanoid: planned.invoice_nanoid,
      ...(planned.pays_invoice === true ? { pays_invoice: true } : {}),
      team_nanoid: team.nanoid,
      payer_nanoid: payer.nanoid,
      ...(planned.recipient_nanoid === undefined ? {} : { recipient_nanoid: planned.recipient_nanoid }),
      ...(planned.recipient_email === undefined ? {} : { recipient_email: planned.recipient_email }),
      state,
      amount_cents: planned.amount_cents,
      currency_symbol: "USD",
      token: entry.token,
      token_amount: entry.amount,
      token_decimals: usdcDecimals,
      pay_type: entry.payType,
      pay_at_time: Number(entry.payAtTime),
      valid_minutes: Number(entry.validMinutes),
      onchain_id: entry.id,
      group_onchain_id: entry.groupID,
      data: entry.data,
      salt: issued.salt,
      invoice: planned.invoice,
      creation_transaction: transaction,
      ...(request.body.pay_now ? { process_transaction: transaction } : {}),
      created_at: isoOf(issued.claimedAt),
      updated_at: updatedAt
    })
  )
}

/**
 * Records a settled request for the holder of its claim: the payments, the result and their events in one step.
 * Answers the result either way: a holder that lost its claim (taken over after its lease expired) records nothing,
 * and the new holder records the same transaction from the chain.
 */
const recordSettlement = Effect.fn("PaymentExecution.recordSettlement")(function* (
  team: Team,
  payer: User,
  issued: Claimed<IssuedPayment>,
  signature: Hex,
  settlement: Settlement
) {
  const entries = entriesOf(issued)
  const payNow = issued.request.body.pay_now
  // Paid now: created `processing`, and the mined receipt confirms it. Otherwise registered as an intent.
  const state = payNow
    ? yield* PaymentMachine.transition(initialPaymentState(true), "confirm").pipe(Effect.orDie)
    : initialPaymentState(false)
  const now = DateTime.formatIso(yield* DateTime.now)
  const payments = paymentsOf(team, payer, issued, state, settlement.transactionHash, now)
  const chainId = (yield* ChainGateway).chainId
  const events = yield* executionEventsOf(
    { team_nanoid: team.nanoid, company_nanoid: team.company_nanoid },
    payments,
    payNow,
    chainFactsOf(chainId, settlement)
  )
  const result: ExecutionResult = { transaction: settlement.transactionHash, payments: entries }
  // The invoices the payments pay, in the same unit: both are recorded, or neither (issue 38).
  const paidBy = { transaction: settlement.transactionHash, block_number: Number(settlement.blockNumber) }
  yield* recordSurely(
    withEvents(
      PaymentLedger.use((ledger) =>
        ledger.recordExecution({ salt: issued.salt, claimToken: issued.claimToken, signature, result, payments })
      ).pipe(Effect.tap((recorded) => (recorded ? payInvoices(payments, paidBy) : Effect.void))),
      (recorded) => (recorded ? events : [])
    )
  )
  yield* Metric.update(Metric.withAttributes(paymentsExecuted, { pay_now: String(payNow) }), payments.length)
  yield* Metric.update(settlementSeconds, ((yield* Clock.currentTimeMillis) - issued.claimedAt) / 1000)
  return result
})

/**
 * Settles a claimed request and records its payments, result and events in one step, answering within
 * `SettlementWait` (`settleWithin`): past it, the transaction in flight, while the execution goes on. Each version sent
 * is noted in the ledger: a replay answers it, and payments paid now are listed `processing` with it.
 */
const settleClaimed = Effect.fn("PaymentExecution.settleClaimed")(function* (
  team: Team,
  payer: User,
  issued: Claimed<IssuedPayment>,
  signature: Hex
) {
  const ledger = yield* PaymentLedger
  const entries = entriesOf(issued)
  // The invoices it pays are held for it before anything is sent; one that cannot be releases the claim (issue 38).
  yield* holdInvoices(issued).pipe(
    Effect.tapError(() => IssuedRequestStore.use((store) => store.release(issued.salt, issued.claimToken)))
  )
  const noteSent = (transaction: string) =>
    Effect.gen(function* () {
      const now = DateTime.formatIso(yield* DateTime.now)
      const listed = issued.request.body.pay_now
        ? paymentsOf(team, payer, issued, initialPaymentState(true), transaction, now)
        : []
      yield* ledger.noteInFlight({
        salt: issued.salt,
        claimToken: issued.claimToken,
        signature,
        result: { transaction, payments: entries },
        payments: listed
      })
    })
  const settled = yield* settleWithin(
    (progress) =>
      Effect.flatMap(settleOnChain(issued, signature, progress), (settlement) =>
        recordSettlement(team, payer, issued, signature, settlement)
      ),
    noteSent,
    `request ${issued.salt}`
  )
  return settled._tag === "Done"
    ? (settled.value as ExecutionAnswer)
    : ({ transaction: settled.transaction, payments: entries, inFlight: true } satisfies ExecutionAnswer)
})

/** Executes signed payments for `team` (the caller's permission already checked): answers `{transaction, payments}`. */
export const executePayments = Effect.fn("PaymentExecution.executePayments")(function* (
  team: Team,
  body: ExecutePaymentsRequest
) {
  const payer = yield* payingSigner(team, body.signer)
  const store = yield* IssuedRequestStore
  const ledger = yield* PaymentLedger
  const salt = body.typed_data.salt
  const issued = yield* store.find(salt)
  if (issued.kind === "roles" || issued.team !== team.nanoid || !sameBody(issued.request.body, body)) {
    return yield* new ExecutionBodyMismatch({ salt })
  }
  return yield* executeOnce({
    request: { typedData: body.typed_data, signer: body.signer, signature: body.signature },
    execute: (claim) => settleClaimed(team, payer, { ...issued, ...claim }, body.signature),
    recorded: (result): Effect.Effect<ExecutionAnswer> => Effect.succeed(result),
    inFlight: (result): Effect.Effect<ExecutionAnswer> => Effect.succeed({ ...result, inFlight: true }),
    abandoned: () =>
      Effect.gen(function* () {
        // The claimer died mid-execution: the chain says whether its transaction went through.
        const used = yield* ChainGateway.use((chain) => chain.isSaltUsed(BigInt(salt))).pipe(Effect.orDie)
        const settlement = used ? yield* settlementOnChain(issued) : undefined
        if (used && settlement === undefined) {
          return yield* new ExecutionInProgress({ salt, message: "Executed on chain; its result is being reconciled" })
        }
        const now = yield* Clock.currentTimeMillis
        const token = yield* ledger.takeOver(salt, now, now + executionLeaseMillis)
        if (Option.isNone(token)) return undefined
        const claimed: Claimed<IssuedPayment> = { ...issued, claimedAt: now, claimToken: token.value }
        // Spent: record what the chain settled (no second transaction); unspent: execute it ourselves.
        return settlement === undefined
          ? yield* settleClaimed(team, payer, claimed, body.signature)
          : yield* recordSettlement(team, payer, claimed, body.signature, settlement)
      })
  })
})

/**
 * What `finishAbandoned` did with a request: recorded from the chain, sent again (then recorded, or in flight), sent
 * again and refused by the chain (the claim released, decision 0037), or left as it is.
 */
export type AbandonedOutcome = "recorded" | "sent" | "refused" | "left"

/** Whether the journal holds a version of `transaction`'s nonce that may still be mined (signed or sent). */
const stillInFlight = (transaction: string) =>
  Effect.gen(function* () {
    const journal = yield* TransactionJournal
    const row = yield* journal.byHash(transaction as Hex)
    if (row === undefined) return false
    const versions = yield* journal.versions(row.chainId, row.relayer, row.nonce)
    return versions.some((version) => version.status === "signed" || version.status === "sent")
  })

/**
 * Finishes a payment request whose holder died (its lease expired; decision 0017) without waiting for the same PUT:
 * - its salt spent on chain by exactly the issued payments: recorded from the chain;
 * - unspent, and no version of its noted transaction still in flight (none known to the journal, or all failed or
 *   reverted): sent again with the noted signature, as the same PUT would;
 * - otherwise left: its transaction may yet be mined (the relayer's monitor follows it), or its holder died before
 *   noting a signature (the same PUT finishes it), or the chain cannot be read now (the next pass tries again).
 */
export const finishAbandoned = Effect.fn("PaymentExecution.finishAbandoned")(function* (request: AbandonedRequest) {
  const { issued, note } = request
  if (issued.kind === "roles" || note === undefined || note.signature === "") return "left" as AbandonedOutcome
  const team = yield* TeamRepository.use((teams) => teams.findById(issued.team))
  const payer = yield* UserRepository.use((users) => users.findByWallet(issued.bundle.typed_data.from))
  if (Option.isNone(team) || Option.isNone(payer)) return "left"
  const signature = note.signature as Hex
  const used = yield* ChainGateway.use((chain) => chain.isSaltUsed(BigInt(request.salt))).pipe(Effect.option)
  if (Option.isNone(used)) return "left"
  const settlement = used.value ? yield* settlementOnChain(issued) : undefined
  if (used.value ? settlement === undefined : yield* stillInFlight(note.result.transaction)) return "left"
  const now = yield* Clock.currentTimeMillis
  const token = yield* PaymentLedger.use((ledger) => ledger.takeOver(request.salt, now, now + executionLeaseMillis))
  if (Option.isNone(token)) return "left"
  const claimed: Claimed<IssuedPayment> = { ...issued, claimedAt: now, claimToken: token.value }
  if (settlement !== undefined) {
    yield* recordSettlement(team.value, payer.value, claimed, signature, settlement)
    return "recorded"
  }
  const sent = yield* Effect.exit(settleClaimed(team.value, payer.value, claimed, signature))
  return Exit.isSuccess(sent) ? "sent" : "refused"
})
