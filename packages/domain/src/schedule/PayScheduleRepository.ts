/**
 * The port where pay schedules are kept. Adapters: SQLite and MongoDB (`@svc/adapters`), one contract suite
 * (`PayScheduleRepository.contract.ts`).
 */
import { Context, type Effect, type Option } from "effect"
import type { PayScheduleId, TeamId } from "../Ids.ts"
import type { FencingToken, Lease } from "../Lease.ts"
import type { StaleState } from "../StaleState.ts"
import type { PaySchedule, PayScheduleState } from "./PaySchedule.ts"

/** What a settled instalment or a cancellation changes of a schedule. */
export type SchedulePatch = Partial<
  Pick<PaySchedule, "paid_count" | "missed_count" | "next_instalment" | "next_pay_at" | "updated_at">
>

/** Where a move expects the schedule to be: the state it leaves, and which instalment is next. */
export interface ScheduleStep {
  readonly state: PayScheduleState
  readonly next_instalment: number
}

/** A schedule whose next instalment is due, leased to one runner. */
export interface LeasedSchedule {
  readonly schedule: PaySchedule
  readonly lease: Lease
}

/**
 * Pay schedules. Implementations must:
 * - `insert`: keep one record per nanoid (a second insert changes nothing and answers `false`);
 * - `listTeam`: newest first (`created_at`, then nanoid, both descending);
 * - `leaseDue`: lease an `active` schedule whose `next_pay_at` is at or before `now` (unix seconds) and that no live
 *   lease holds, to one caller at a time across machines, in one conditional update, under a fencing token larger
 *   than every earlier one of that schedule (decision 0090); the earliest due first;
 * - `renew`: extend the lease to `until` while `token` is still the schedule's current one (`None` otherwise);
 * - `transition`: move a schedule from `from` to `to` (a move outside `PayScheduleMachine`'s table is a defect), only
 *   while it is still in `from` (`StaleState` otherwise) and, when `token` is given, only while that token is its
 *   current one; the lease ends with the move;
 * - `release`: end the lease of `token` (nothing changes once another holds it), leaving the schedule free from
 *   `retryAt` (epoch ms) when given.
 */
export class PayScheduleRepository extends Context.Service<
  PayScheduleRepository,
  {
    readonly insert: (schedule: PaySchedule) => Effect.Effect<boolean>
    readonly find: (nanoid: PayScheduleId) => Effect.Effect<Option.Option<PaySchedule>>
    readonly listTeam: (team: TeamId) => Effect.Effect<ReadonlyArray<PaySchedule>>
    /** The teams with an active schedule, each once (whose cash requirement is watched). */
    readonly activeTeams: Effect.Effect<ReadonlyArray<TeamId>>
    readonly leaseDue: (options: {
      readonly now: number
      readonly nowMillis: number
      readonly leaseUntil: number
    }) => Effect.Effect<LeasedSchedule | undefined>
    readonly renew: (nanoid: PayScheduleId, token: FencingToken, until: number) => Effect.Effect<Option.Option<Lease>>
    readonly transition: (
      nanoid: PayScheduleId,
      from: ScheduleStep,
      to: PayScheduleState,
      patch: SchedulePatch,
      token?: FencingToken
    ) => Effect.Effect<PaySchedule, StaleState>
    readonly release: (nanoid: PayScheduleId, token: FencingToken, retryAt?: number) => Effect.Effect<void>
  }
>()("@svc/domain/schedule/PayScheduleRepository") {}
