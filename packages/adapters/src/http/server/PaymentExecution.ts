/**
 * Executing signed payments (PUT /v2/payments): the signer's right to pay for the team, the domain's check of the
 * signed request, one claim of the salt across replicas, settlement through the chain, and the payments with their
 * events recorded in one step. A replay, or a second replica receiving the same request, answers the first result;
 * a request the chain executed but whose result was never recorded is reconciled from the chain (docs/decisions/0017).
 */
import { type ChainError, ChainGateway, paymentRequestOf, paymentsRequestOf, type Settlement } from "@svc/domain/chain"
import {
  authorizeSignedRequest,
  type ClaimedTypedData,
  type IssuedTypedData,
  IssuedTypedDataStore,
  type PaymentsTypedDataBundle,
  type PaymentTypedDataBundle
} from "@svc/domain/eip712"
import { type EventRecipient, makeDomainEvent, paymentEventPayloadOf } from "@svc/domain/event"
import type { UserId } from "@svc/domain/Ids"
import { MembershipRepository } from "@svc/domain/membership"
import {
  type ExecutePaymentsRequest,
  type ExecutionResult,
  executionLeaseMillis,
  initialPaymentState,
  type Payment,
  PaymentLedger,
  PaymentMachine,
  usdcDecimals
} from "@svc/domain/payment"
import type { Team } from "@svc/domain/team"
import { UserRepository } from "@svc/domain/user"
import { Clock, DateTime, Duration, Effect, Option, Schedule } from "effect"
import type { Address, Hex } from "viem"
import { type ApiError, apiError } from "../ApiError.ts"
import type { IssuedPaymentsRequest } from "./PaymentIssuance.ts"

/** Roles whose wallet may sign payments for a team (the forwarder's rule). */
const payingRoles: ReadonlyArray<string> = ["team_admin", "team_finance_admin"]

/** How long a request that finds another replica executing the same salt waits for its result. */
const replayWaitMillis = 30_000

/** The token as events describe it. */
export const tokenInfo = { name: "USD Coin", symbol: "USDC", decimals: usdcDecimals }

const errorOf = (error: { readonly errorCode: ApiError["error_code"] }) => apiError(error.errorCode)

/** The user whose wallet is `signer`, when it may pay for `team`; else 403. */
const payingSigner = Effect.fn("PaymentExecution.payingSigner")(function* (team: Team, signer: string) {
  const user = yield* UserRepository.use((u) => u.findByWallet(signer))
  if (user._tag === "None")
    return yield* Effect.fail(apiError("INSUFFICIENT_PERMISSIONS", "The signer is not a member of the team"))
  const membership = yield* MembershipRepository.use((m) => m.find(team.nanoid, user.value.nanoid))
  if (membership._tag === "None" || !payingRoles.includes(membership.value.role)) {
    return yield* Effect.fail(apiError("INSUFFICIENT_PERMISSIONS", "The signer may not pay for this team"))
  }
  return user.value
})

/** The PUT body repeats what POST was asked: `from`, `to` entry for entry, `pay_now`. */
const sameBody = (issued: IssuedPaymentsRequest["body"], body: ExecutePaymentsRequest) =>
  issued.from === body.from &&
  issued.pay_now === body.pay_now &&
  issued.to.length === body.to.length &&
  issued.to.every((entry, index) => {
    const other = body.to[index]
    return (
      other !== undefined &&
      (entry.to.startsWith("us-") ? entry.to === other.to : entry.to === other.to.trim().toLowerCase()) &&
      entry.amount_cents === other.amount_cents &&
      entry.currency_symbol === other.currency_symbol &&
      entry.invoice_description === other.invoice_description
    )
  })

/** The signed payment entries of an issued request, in request order. */
const entriesOf = (issued: IssuedTypedData) => {
  const bundle = issued.bundle as PaymentsTypedDataBundle | PaymentTypedDataBundle
  return bundle.primary_type === "CreatePaymentsForwardRequest"
    ? bundle.typed_data.data.payments
    : [bundle.typed_data.data]
}

/**
 * The settlement the chain shows for the salt of `issued` on the team's account, when it settled exactly the issued
 * payments (ids and amounts, in order); `undefined` when it shows none, or another request spent the salt.
 */
const settlementOnChain = Effect.fn("PaymentExecution.settlementOnChain")(function* (issued: IssuedTypedData) {
  const account = (issued.bundle as PaymentsTypedDataBundle | PaymentTypedDataBundle).typed_data.to as Address
  const settlement = yield* ChainGateway.use((chain) => chain.settlementOfSalt(account, BigInt(issued.salt))).pipe(
    Effect.orDie
  )
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
 * Sends the signed request. Refusals before the chain spent the salt release the claim so the signer may retry; a
 * `SaltReplayed` (an earlier copy of this request went through, say a relayer retry) answers what that copy settled.
 */
const settleOnChain = (issued: ClaimedTypedData, signature: Hex) =>
  Effect.gen(function* () {
    const chain = yield* ChainGateway
    const bundle = issued.bundle as PaymentsTypedDataBundle | PaymentTypedDataBundle
    const sent: Effect.Effect<Settlement, ChainError> =
      bundle.primary_type === "CreatePaymentsForwardRequest"
        ? chain.executePayments({ request: paymentsRequestOf(bundle.typed_data), signature })
        : chain.executePayment({
            request: paymentRequestOf((bundle as PaymentTypedDataBundle).typed_data),
            signature
          })
    return yield* sent.pipe(
      Effect.catch((error: ChainError): Effect.Effect<Settlement, ApiError, ChainGateway | IssuedTypedDataStore> => {
        // Unknown outcome: keep the claim; its lease lets a later request reconcile with the chain.
        if (error._tag === "ChainUnavailable") return Effect.die(error)
        // The salt is spent on chain: never release it; record what it settled if it was this request.
        if (error._tag === "SaltReplayed") {
          return Effect.flatMap(settlementOnChain(issued), (settlement) =>
            settlement === undefined ? Effect.fail(errorOf(error)) : Effect.succeed(settlement)
          )
        }
        return Effect.andThen(
          IssuedTypedDataStore.use((store) => store.release(issued.salt, issued.claimToken)),
          Effect.fail(errorOf(error))
        )
      })
    )
  })

/** Settles a claimed request and records its payments, result and events in one step. */
const settleClaimed = Effect.fn("PaymentExecution.settleClaimed")(function* (
  team: Team,
  payer: { readonly nanoid: UserId },
  issued: ClaimedTypedData,
  signature: Hex
) {
  const settlement = yield* settleOnChain(issued, signature)
  return yield* recordSettlement(team, payer, issued, signature, settlement)
})

/**
 * Records a settled request for the holder of its claim: the payments, the result and their events in one step.
 * Answers the result either way: a holder that lost its claim (taken over after its lease expired) records nothing,
 * and the new holder records the same transaction from the chain.
 */
const recordSettlement = Effect.fn("PaymentExecution.recordSettlement")(function* (
  team: Team,
  payer: { readonly nanoid: UserId },
  issued: ClaimedTypedData,
  signature: Hex,
  settlement: Settlement
) {
  const request = issued.request as IssuedPaymentsRequest
  const entries = entriesOf(issued)
  const now = DateTime.formatIso(yield* DateTime.now)
  const payNow = request.body.pay_now
  // Paid now: created `processing`, and the mined receipt confirms it. Otherwise registered as an intent.
  const state = payNow
    ? yield* PaymentMachine.transition(initialPaymentState(true), "confirm").pipe(Effect.orDie)
    : initialPaymentState(false)
  const payments: Array<Payment> = request.planned.map((planned, index) => {
    const entry = entries[index] as (typeof entries)[number]
    return {
      nanoid: planned.nanoid,
      group_nanoid: request.group_nanoid,
      invoice_nanoid: planned.invoice_nanoid,
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
      creation_transaction: settlement.transactionHash,
      ...(payNow ? { process_transaction: settlement.transactionHash } : {}),
      created_at: now,
      updated_at: now
    } satisfies Payment
  })
  const events = yield* eventsOf(team, payments, payNow)
  const result: ExecutionResult = { transaction: settlement.transactionHash, payments: entries }
  yield* PaymentLedger.use((ledger) =>
    ledger.recordExecution({
      salt: issued.salt,
      claimToken: issued.claimToken,
      signature,
      result,
      payments,
      events
    })
  )
  return result
})

/** `payment.group.created` for the batch, and `payment.sent` for each payment paid at once. */
const eventsOf = Effect.fn("PaymentExecution.eventsOf")(function* (
  team: Team,
  payments: ReadonlyArray<Payment>,
  sent: boolean
) {
  const recipients = yield* recipientsOf(payments)
  const payloads = payments.map((payment) => paymentEventPayloadOf(payment, recipients(payment), tokenInfo))
  const first = payments[0]
  const scope = { team_nanoid: team.nanoid, company_nanoid: team.company_nanoid }
  const group =
    first === undefined
      ? []
      : [
          yield* makeDomainEvent({
            ...scope,
            event_type: "payment.group.created",
            data: {
              nanoid: first.group_nanoid,
              onchain_id: first.group_onchain_id,
              created_at: first.created_at,
              updated_at: first.updated_at,
              invoice_type: first.pay_type === "3" ? "instant" : "batch",
              invoice_description: first.invoice.invoice_description,
              role_description: first.invoice.role_description,
              currency: "USD",
              payments: payloads
            }
          })
        ]
  const each = sent
    ? yield* Effect.forEach(payloads, (payload) =>
        makeDomainEvent({ ...scope, event_type: "payment.sent", data: payload })
      )
    : []
  return [...group, ...each]
})

/** How events name the recipient of each payment. */
export const recipientsOf = Effect.fn("PaymentExecution.recipientsOf")(function* (payments: ReadonlyArray<Payment>) {
  const ids = [...new Set(payments.flatMap((p) => (p.recipient_nanoid === undefined ? [] : [p.recipient_nanoid])))]
  const users = new Map((yield* UserRepository.use((u) => u.findByIds(ids))).map((u) => [u.nanoid, u]))
  return (payment: Payment): EventRecipient => {
    if (payment.recipient_nanoid === undefined) {
      return { nanoid: "", email: payment.recipient_email ?? "", name: "", entity_type: "email" }
    }
    const user = users.get(payment.recipient_nanoid)
    return {
      nanoid: payment.recipient_nanoid,
      email: user?.email ?? "",
      name: user === undefined ? "" : `${user.first_name} ${user.last_name}`.trim(),
      entity_type: "user"
    }
  }
})

type Attempt =
  | { readonly _tag: "Result"; readonly result: ExecutionResult }
  | { readonly _tag: "Retry" }
  | { readonly _tag: "Abandoned" }

/** Waits for whoever holds the claim of `salt`: its result, a release (retry), or an expired lease (abandoned). */
const awaitOutcome = (salt: string) =>
  PaymentLedger.use((ledger) => ledger.outcome(salt)).pipe(
    Effect.orDie,
    Effect.flatMap((outcome) =>
      Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<Attempt | undefined> => {
        if (outcome.state === "executed") return Effect.succeed({ _tag: "Result", result: outcome.result })
        if (outcome.state === "issued") return Effect.succeed({ _tag: "Retry" })
        if (outcome.leaseUntil < now) return Effect.succeed({ _tag: "Abandoned" })
        return Effect.succeed(undefined)
      })
    ),
    Effect.repeat({
      until: (attempt) => attempt !== undefined,
      schedule: Schedule.spaced(Duration.millis(100))
    }),
    Effect.timeoutOption(Duration.millis(replayWaitMillis)),
    Effect.flatMap((attempt) =>
      attempt._tag === "Some" && attempt.value !== undefined
        ? Effect.succeed(attempt.value)
        : Effect.fail(apiError("ALREADY_EXECUTED", "The request is still executing; retry later"))
    )
  )

/** PUT /v2/payments after the caller's permission check: answers `{transaction, payments}`. */
export const executePayments = Effect.fn("PaymentExecution.executePayments")(function* (
  team: Team,
  body: ExecutePaymentsRequest
) {
  const payer = yield* payingSigner(team, body.signer)
  const store = yield* IssuedTypedDataStore
  const ledger = yield* PaymentLedger
  const salt = body.typed_data.salt
  const issued = yield* store.find(salt).pipe(Effect.mapError(errorOf))
  const request = issued.request as IssuedPaymentsRequest
  if (issued.team !== team.nanoid || !sameBody(request.body, body)) {
    return yield* Effect.fail(
      apiError("TYPED_DATA_MISMATCH", "The body differs from the one the typed data was issued for")
    )
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = yield* authorizeSignedRequest({
      typedData: body.typed_data,
      signer: body.signer,
      signature: body.signature
    }).pipe(
      Effect.map((claimed) => ({ _tag: "Claimed" as const, claimed })),
      Effect.catchTag("AlreadyExecuted", () => Effect.succeed({ _tag: "Taken" as const })),
      // An expired request that already executed still answers its result.
      Effect.catchTag("ExpiredTypedData", (error) =>
        Effect.flatMap(Effect.orDie(ledger.outcome(salt)), (outcome) =>
          outcome.state === "issued" ? Effect.fail(error) : Effect.succeed({ _tag: "Taken" as const })
        )
      ),
      Effect.mapError(errorOf)
    )
    if (claim._tag === "Claimed") return yield* settleClaimed(team, payer, claim.claimed, body.signature)
    const waited = yield* awaitOutcome(salt)
    if (waited._tag === "Result") return waited.result
    if (waited._tag === "Abandoned") {
      // The claimer died mid-execution: the chain says whether its transaction went through.
      const used = yield* ChainGateway.use((chain) => chain.isSaltUsed(BigInt(salt))).pipe(Effect.orDie)
      const settlement = used ? yield* settlementOnChain(issued) : undefined
      if (used && settlement === undefined) {
        return yield* Effect.fail(apiError("ALREADY_EXECUTED", "Executed on chain; its result is being reconciled"))
      }
      const now = yield* Clock.currentTimeMillis
      const token = yield* ledger.takeOver(salt, now, now + executionLeaseMillis)
      if (Option.isSome(token)) {
        const claimed: ClaimedTypedData = { ...issued, executedAt: now, claimToken: token.value }
        // Spent: record what the chain settled (no second transaction); unspent: execute it ourselves.
        return settlement === undefined
          ? yield* settleClaimed(team, payer, claimed, body.signature)
          : yield* recordSettlement(team, payer, claimed, body.signature, settlement)
      }
    }
  }
  return yield* Effect.fail(apiError("ALREADY_EXECUTED", "The request is being executed by another request"))
})
