/**
 * Executing a signed pay schedule (PUT /v2/pay_schedules) once across processes, on the same path as PUT /v2/payments
 * (decisions 0017, 0061, 0090, 0093, 0112): `executeOnce` claims the salt under a fencing token its holder renews,
 * sends it, answers 202 with its hash while in flight, and a request whose holder died or whose outcome is unknown is
 * finished by recovery. What the holder records is `ScheduleRecords.ts`'s: the schedule `active` with
 * `payment.subscription.created`, in one unit of work with the execution.
 */
import { Effect, Option } from "effect"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import type { PayScheduleId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { executeOnce } from "../payment/ExecuteOnce.ts"
import { ExecutionBodyMismatch, ExecutionInProgress } from "../payment/PaymentErrors.ts"
import type { Caller } from "../user/Caller.ts"
import { PayScheduleRepository } from "./PayScheduleRepository.ts"
import type { ExecutePayScheduleRequest, PayScheduleItem } from "./ScheduleRequests.ts"
import { scheduleItemOf } from "./ScheduleView.ts"

/** What PUT /v2/pay_schedules answers: the schedule registered (200), or its transaction still in flight (202). */
export type ScheduleExecution =
  | {
      readonly _tag: "Executed"
      readonly result: { readonly transaction: string; readonly pay_schedule: PayScheduleItem }
    }
  | {
      readonly _tag: "InFlight"
      readonly result: { readonly transaction: string; readonly pay_schedule_nanoid: PayScheduleId }
    }

/**
 * Executes the signed schedule of the issued request the body names, once (`payments.execute`).
 *
 * @example
 * const answer = yield* executePaySchedule(caller, { team_nanoid, signer, typed_data: bundle.typed_data, signature })
 * // answer._tag === "Executed": answer.result.pay_schedule.state === "active"
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
  const schedule = issued.request.schedule
  const settled = yield* executeOnce({ typedData: body.typed_data, signer: body.signer, signature: body.signature })
  const { transaction } = settled.result
  if (settled._tag === "InFlight") {
    return { _tag: "InFlight", result: { transaction, pay_schedule_nanoid: schedule } } as ScheduleExecution
  }
  const found = yield* PayScheduleRepository.use((repository) => repository.find(schedule))
  // Executed and not recorded as a schedule: another request spent its salt first (not this one's transaction).
  if (Option.isNone(found)) return yield* new ExecutionInProgress({ salt, message: "The schedule is being recorded" })
  return {
    _tag: "Executed",
    result: { transaction, pay_schedule: scheduleItemOf(found.value) }
  } as ScheduleExecution
})
