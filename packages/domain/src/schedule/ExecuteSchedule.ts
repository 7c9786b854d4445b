/**
 * Executing a signed pay schedule (PUT /v2/pay_schedules) once across processes, with the rules of PUT /v2/payments
 * (decision 0017, 0061): the claim of the salt, a replay answering the first result, 202 while the transaction is in
 * flight, and a request whose holder died finished from the chain's record of it (decision 0111). Registered, the
 * schedule is recorded `active` with `payment.subscription.created`, in one unit of work with the execution.
 */
import { Clock, DateTime, Effect, Option } from "effect"
import type { Hex } from "viem"
import type { RequestError } from "../chain/ChainError.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { Receipt } from "../chain/Settlement.ts"
import { type Claimed, IssuedRequestStore, type IssuedSchedule } from "../eip712/IssuedRequestStore.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { executeOnce, recordSurely, releaseOnRefusal, sendToChain, settleWithin } from "../payment/ExecuteOnce.ts"
import { ExecutionBodyMismatch, ExecutionInProgress } from "../payment/PaymentErrors.ts"
import { executionLeaseMillis, PaymentLedger } from "../payment/PaymentLedger.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import { instalmentDueAt } from "./Instalments.ts"
import { type PaySchedule, scheduleOnchainIdOf } from "./PaySchedule.ts"
import { PayScheduleRepository } from "./PayScheduleRepository.ts"
import { scheduleEventOf } from "./ScheduleEvents.ts"
import type { ExecutePayScheduleRequest, PayScheduleItem } from "./ScheduleRequests.ts"
import { scheduleItemOf } from "./ScheduleView.ts"

/** What PUT /v2/pay_schedules answers: the schedule registered, or (`inFlight`) its transaction still in flight. */
export type ScheduleExecution =
  | { readonly _tag: "Registered"; readonly transaction: string; readonly schedule: PayScheduleItem }
  | { readonly _tag: "InFlight"; readonly transaction: string; readonly schedule: PaySchedule["nanoid"] }

/** The schedule an issued request registers, as recorded once its transaction is final. */
const scheduleOf = (issued: IssuedSchedule, registration: Receipt, now: string): PaySchedule => {
  const request = issued.request
  return {
    nanoid: request.schedule,
    team_nanoid: issued.team,
    signer_nanoid: issued.issuedTo,
    signer: issued.signer,
    state: "active",
    interval: request.interval,
    first_pay_at: request.first_pay_at,
    count: request.count,
    valid_minutes: request.valid_minutes,
    token: request.token,
    token_decimals: request.token_decimals,
    payees: request.payees,
    onchain_id: scheduleOnchainIdOf(request.schedule),
    salt: issued.salt,
    registration_transaction: registration.transactionHash,
    registration_block: Number(registration.blockNumber),
    paid_count: 0,
    missed_count: 0,
    next_instalment: 0,
    next_pay_at: instalmentDueAt({ firstPayAt: request.first_pay_at, interval: request.interval }, 0),
    created_at: now,
    updated_at: now
  }
}

/**
 * Records the registration for the holder of `claimToken`: the execution, the schedule and its event in one unit of
 * work, or nothing when the claim was lost (another holder records it). Answers the schedule as stored.
 */
const recordRegistration = Effect.fn("PaySchedules.recordRegistration")(function* (
  issued: IssuedSchedule,
  claimToken: string,
  signature: Hex,
  registration: Receipt
) {
  const repository = yield* PayScheduleRepository
  const ledger = yield* PaymentLedger
  const schedule = scheduleOf(issued, registration, DateTime.formatIso(yield* DateTime.now))
  const event = yield* scheduleEventOf("payment.subscription.created", schedule)
  const result = { transaction: registration.transactionHash, payments: [] }
  yield* recordSurely(
    withEvents(
      Effect.gen(function* () {
        const recorded = yield* ledger.recordExecution({
          salt: issued.salt,
          claimToken,
          signature,
          result,
          payments: []
        })
        return recorded && (yield* repository.insert(schedule))
      }),
      (inserted) => (inserted ? [event] : [])
    )
  )
  return Option.getOrElse(yield* repository.find(schedule.nanoid), () => schedule)
})

/** Sends the signed schedule for the holder of the claim, and records it; past `SettlementWait`, the hash in flight. */
const register = (issued: IssuedSchedule, signature: Hex, claimToken: string) =>
  Effect.gen(function* () {
    const ledger = yield* PaymentLedger
    const chain = yield* ChainGateway
    const settled = yield* settleWithin(
      (progress) =>
        Effect.gen(function* () {
          const registration = yield* sendToChain(issued, signature, progress).pipe(
            Effect.provideService(ChainGateway, chain),
            Effect.tapError((error) => releaseOnRefusal(issued.salt, claimToken, error))
          )
          return yield* recordRegistration(issued, claimToken, signature, registration)
        }),
      (transaction) =>
        ledger.noteInFlight({
          salt: issued.salt,
          claimToken,
          signature,
          result: { transaction, payments: [] },
          payments: []
        }),
      `pay schedule ${issued.request.schedule}`
    )
    return settled._tag === "Done"
      ? ({
          _tag: "Registered",
          transaction: settled.value.registration_transaction,
          schedule: scheduleItemOf(settled.value)
        } satisfies ScheduleExecution as ScheduleExecution)
      : ({
          _tag: "InFlight",
          transaction: settled.transaction,
          schedule: issued.request.schedule
        } satisfies ScheduleExecution as ScheduleExecution)
  })

/** What a replay answers once the schedule is recorded (or, until then, that it is still being recorded). */
const answerRecorded = (issued: IssuedSchedule, transaction: string) =>
  Effect.flatMap(
    PayScheduleRepository.use((repository) => repository.find(issued.request.schedule)),
    (found) =>
      Option.isSome(found)
        ? Effect.succeed<ScheduleExecution>({ _tag: "Registered", transaction, schedule: scheduleItemOf(found.value) })
        : Effect.fail(new ExecutionInProgress({ salt: issued.salt, message: "The schedule is being recorded; retry" }))
  )

/**
 * Its holder died (its lease expired): the chain says whether its transaction went through. Registered: recorded
 * from the chain's record of the request; not: sent again under a new claim, as this PUT would.
 */
const finishAbandoned = (issued: IssuedSchedule, signature: Hex) =>
  Effect.gen(function* () {
    const chain = yield* ChainGateway
    const onChain = yield* chain.settlementOfSalt(issued.request.account, BigInt(issued.salt)).pipe(Effect.orDie)
    const now = yield* Clock.currentTimeMillis
    const token = yield* PaymentLedger.use((ledger) => ledger.takeOver(issued.salt, now, now + executionLeaseMillis))
    if (Option.isNone(token)) return undefined
    if (onChain === undefined) return yield* register(issued, signature, token.value)
    const schedule = yield* recordRegistration(issued, token.value, signature, onChain)
    return {
      _tag: "Registered",
      transaction: schedule.registration_transaction,
      schedule: scheduleItemOf(schedule)
    } satisfies ScheduleExecution as ScheduleExecution
  })

/**
 * Executes the signed schedule of the issued request the body names, once (`payments.execute`).
 *
 * @example
 * const answer = yield* executePaySchedule(caller, { team_nanoid, signer, typed_data: bundle.typed_data, signature })
 * // answer._tag === "Registered": answer.schedule.state === "active"
 */
export const executePaySchedule = Effect.fn("PaySchedules.execute")(function* (
  caller: Caller,
  body: ExecutePayScheduleRequest
) {
  const salt = body.typed_data.salt
  // The caller's permission first: refused before anything is read (decision 0058).
  yield* TeamAccess.use((access) => access.authorize(caller, body.team_nanoid, "payments.execute"))
  const issued = yield* IssuedRequestStore.use((store) => store.find(salt))
  if (issued.kind !== "schedule" || issued.team !== body.team_nanoid) {
    return yield* new ExecutionBodyMismatch({ salt })
  }
  yield* ChainGateway.required
  const signature = body.signature as Hex
  return yield* executeOnce({
    request: { typedData: body.typed_data, signer: body.signer, signature: body.signature },
    execute: (claim) =>
      register(issued, signature, claim.claimToken).pipe(
        Effect.mapError((error): RequestError | ExecutionInProgress => error)
      ),
    recorded: (result) => answerRecorded(issued, result.transaction),
    inFlight: (noted) =>
      Effect.succeed<ScheduleExecution>({
        _tag: "InFlight",
        transaction: noted.transaction,
        schedule: issued.request.schedule
      }),
    abandoned: () => finishAbandoned(issued as Claimed<IssuedSchedule>, signature)
  })
})
