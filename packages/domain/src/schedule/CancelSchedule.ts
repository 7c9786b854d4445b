/**
 * Cancelling pay schedules, for good (decision 0110): on chain first, through the service's operators
 * (`cancelSchedules`), then in the record with its `payment.canceled` event, in one conditional step from `active`.
 * The chain first, so that a schedule recorded as canceled can never be paid; a record left active after the chain
 * canceled it is corrected by the runner's reconciliation (`reconcileCanceled`), or by the runner when it finds it
 * `ScheduleNotActive`. One path for every cause: the team's
 * request (`DELETE /v2/pay_schedules/{ps}`), its signer's removal, and a payee's removal or blocking (issue 39 calls
 * `cancelSchedulesOf`).
 */
import { DateTime, Effect, Option } from "effect"
import type { Hex } from "viem"
import { ChainGateway } from "../chain/ChainGateway.ts"
import type { PayScheduleId, TeamId, UserId } from "../Ids.ts"
import type { FencingToken } from "../Lease.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import { payingRoles } from "../payment/PaymentExecution.ts"
import { teamAccountOf } from "../team/Team.ts"
import { TeamRepository } from "../team/TeamRepository.ts"
import { withEvents } from "../UnitOfWork.ts"
import type { Caller } from "../user/Caller.ts"
import { type PaySchedule, PayScheduleMachine } from "./PaySchedule.ts"
import { PayScheduleNotFound, ScheduleNotCancelable } from "./PayScheduleErrors.ts"
import { PayScheduleRepository } from "./PayScheduleRepository.ts"
import { type CancelReason, scheduleEventOf } from "./ScheduleEvents.ts"
import { scheduleItemOf } from "./ScheduleView.ts"

/** Cancels `schedules` of one team on chain (when there is one), in one transaction. */
export const cancelOnChain = Effect.fn("PaySchedules.cancelOnChain")(function* (
  team: TeamId,
  schedules: ReadonlyArray<PaySchedule>
) {
  const chain = yield* ChainGateway.present
  const found = yield* TeamRepository.use((teams) => teams.findById(team))
  const account = Option.isSome(found) ? teamAccountOf(found.value) : undefined
  if (Option.isNone(chain) || account === undefined || schedules.length === 0) return
  yield* chain.value.cancelSchedules(
    account,
    schedules.map((schedule) => schedule.onchain_id as Hex)
  )
})

/**
 * Why `schedule` may no longer be paid, from the memberships as they are now: its signer gone, without a paying
 * role or blocked, or a payee gone or blocked; `wait` while a block is under way (its mark: the chain may yet refuse
 * it, and a cancellation is for good), so nothing is paid meanwhile; `undefined` while it stands. The runner asks before each instalment, so a schedule whose
 * cancellation a removal left unfinished is canceled before it pays anyone.
 */
export const endedStanding = Effect.fn("PaySchedules.endedStanding")(function* (schedule: PaySchedule) {
  const memberships = yield* MembershipRepository
  const signer = yield* memberships.find(schedule.team_nanoid, schedule.signer_nanoid)
  if (Option.isNone(signer) || !payingRoles.includes(signer.value.role)) return "signer_removed" as CancelReason
  if (signer.value.block?.state === "blocking") return "wait" as const
  if (signer.value.block !== undefined) return "signer_blocked" as CancelReason
  for (const payee of schedule.payees) {
    const member = yield* memberships.find(schedule.team_nanoid, payee.recipient_nanoid)
    if (Option.isNone(member)) return "payee_removed" as CancelReason
    if (member.value.block?.state === "blocking") return "wait" as const
    if (member.value.block !== undefined) return "payee_blocked" as CancelReason
  }
  return undefined
})

/**
 * Records `schedule` canceled with its event; `undefined` when it is no longer active. A runner that settled an
 * instalment meanwhile moved it on: it is read again and canceled from there. A runner cancels under its lease's
 * `token`, and only while it holds it.
 */
export const recordCanceled = Effect.fn("PaySchedules.recordCanceled")(function* (
  schedule: PaySchedule,
  reason: CancelReason,
  token?: FencingToken
) {
  const repository = yield* PayScheduleRepository
  let current: PaySchedule = schedule
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = DateTime.formatIso(yield* DateTime.now)
    const next = PayScheduleMachine.next(current.state, "cancel")
    if (next === undefined) return undefined
    const canceled: PaySchedule = { ...current, state: next, next_pay_at: null, updated_at: now }
    const event = yield* scheduleEventOf("payment.canceled", canceled, { cancelReason: reason })
    const moved = yield* withEvents(
      repository.transition(
        current.nanoid,
        { state: current.state, next_instalment: current.next_instalment },
        next,
        { next_pay_at: null, updated_at: now },
        token
      ),
      () => [event]
    ).pipe(Effect.option)
    if (Option.isSome(moved)) return moved.value
    if (token !== undefined) return undefined
    const again = yield* repository.find(current.nanoid)
    if (Option.isNone(again) || again.value.state !== "active") return undefined
    current = again.value
  }
  return undefined
})

/**
 * Cancels the active schedules of `team` that `who` names (signed by `signer`, or paying `payee`), on chain then in
 * the records, each with its event; answers the schedules canceled. For a member's removal, and their blocking.
 *
 * @example
 * yield* cancelSchedulesOf(team, { payee: user }, "payee_blocked")
 */
export const cancelSchedulesOf = Effect.fn("PaySchedules.cancelOf")(function* (
  team: TeamId,
  who: { readonly signer?: UserId; readonly payee?: UserId },
  reason: CancelReason
) {
  const active = (yield* PayScheduleRepository.use((repository) => repository.listTeam(team))).filter(
    (schedule) =>
      schedule.state === "active" &&
      (schedule.signer_nanoid === who.signer || schedule.payees.some((p) => p.recipient_nanoid === who.payee))
  )
  // The member is gone already: a chain that refuses or is down now leaves the schedules canceled in the records (no
  // runner pays them), and says so; on chain their instalments stay payable by anyone until an operator cancels them.
  yield* cancelOnChain(team, active).pipe(
    Effect.catch((error) =>
      Effect.logWarning(
        `pay schedules ${active.map((s) => s.nanoid).join(", ")} were not canceled on chain (${error._tag}); canceled in the records`
      )
    )
  )
  const canceled: Array<PaySchedule> = []
  for (const schedule of active) {
    const moved = yield* recordCanceled(schedule, reason)
    if (moved !== undefined) canceled.push(moved)
  }
  return canceled
})

/**
 * Records canceled each active schedule the chain holds inactive: a cancellation whose record was lost (its process
 * killed between the chain and the record) is recorded within one pass, and the invoices the schedule held are let go,
 * rather than at the runner's next due time. One whose signer or payee is being blocked waits for the block to end,
 * as the runner does. Answers how many were recorded canceled.
 */
export const reconcileCanceled = Effect.fn("PaySchedules.reconcileCanceled")(function* () {
  const chain = yield* ChainGateway.present
  if (Option.isNone(chain)) return 0
  const repository = yield* PayScheduleRepository
  let canceled = 0
  for (const team of yield* repository.activeTeams) {
    const found = yield* TeamRepository.use((teams) => teams.findById(team))
    const account = Option.isSome(found) ? teamAccountOf(found.value) : undefined
    if (account === undefined) continue
    for (const schedule of yield* repository.listTeam(team)) {
      if (schedule.state !== "active") continue
      const onChain = yield* chain.value.schedule(account, schedule.onchain_id as Hex)
      if (onChain === undefined || onChain.active) continue
      const ended = yield* endedStanding(schedule)
      if (ended === "wait") continue
      if ((yield* recordCanceled(schedule, ended ?? "team")) !== undefined) canceled++
    }
  }
  return canceled
})

/**
 * Cancels a pay schedule for the team (`DELETE /v2/pay_schedules/{ps}`, `payments.execute`: a team admin or finance
 * admin). One already completed or canceled answers `ScheduleNotCancelable`.
 */
export const cancelPaySchedule = Effect.fn("PaySchedules.cancel")(function* (caller: Caller, nanoid: PayScheduleId) {
  const found = yield* PayScheduleRepository.use((repository) => repository.find(nanoid))
  if (Option.isNone(found)) return yield* new PayScheduleNotFound({ schedule: nanoid })
  const schedule = found.value
  yield* TeamAccess.use((access) => access.authorize(caller, schedule.team_nanoid, "payments.execute"))
  const refused = new ScheduleNotCancelable({
    schedule: nanoid,
    state: schedule.state,
    message: `Only an active schedule can be canceled; this one is ${schedule.state}`
  })
  if (schedule.state !== "active") return yield* refused
  yield* cancelOnChain(schedule.team_nanoid, [schedule])
  const canceled = yield* recordCanceled(schedule, "team")
  if (canceled === undefined) return yield* refused
  return scheduleItemOf(canceled)
})
