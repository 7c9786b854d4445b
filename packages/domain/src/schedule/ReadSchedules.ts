/** Reading a team's pay schedules (`payments.read`): the list, newest first, and one by nanoid. */
import { Effect, Option } from "effect"
import type { PayScheduleId, TeamId } from "../Ids.ts"
import { TeamAccess } from "../membership/TeamAccess.ts"
import type { Caller } from "../user/Caller.ts"
import { PayScheduleNotFound } from "./PayScheduleErrors.ts"
import { PayScheduleRepository } from "./PayScheduleRepository.ts"
import { scheduleItemOf } from "./ScheduleView.ts"

/** The team's schedules, newest first (`GET /v2/pay_schedules?team_nanoid=`). */
export const listPaySchedules = Effect.fn("PaySchedules.list")(function* (caller: Caller, team: TeamId) {
  yield* TeamAccess.use((access) => access.authorize(caller, team, "payments.read"))
  const schedules = yield* PayScheduleRepository.use((repository) => repository.listTeam(team))
  return schedules.map(scheduleItemOf)
})

/**
 * One schedule (`GET /v2/pay_schedules/{ps}`): `PayScheduleNotFound` when there is none, and when it is of a team the
 * caller may not read, so that its existence is not told.
 */
export const getPaySchedule = Effect.fn("PaySchedules.get")(function* (caller: Caller, nanoid: PayScheduleId) {
  const found = yield* PayScheduleRepository.use((repository) => repository.find(nanoid))
  if (Option.isNone(found)) return yield* new PayScheduleNotFound({ schedule: nanoid })
  yield* TeamAccess.use((access) => access.authorize(caller, found.value.team_nanoid, "payments.read")).pipe(
    Effect.catchTags({
      TeamNotFound: () => Effect.fail(new PayScheduleNotFound({ schedule: nanoid })),
      InsufficientPermissions: () => Effect.fail(new PayScheduleNotFound({ schedule: nanoid }))
    })
  )
  return scheduleItemOf(found.value)
})
