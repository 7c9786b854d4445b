/** The pay schedule routes and the cash requirement (issue 37) over the domain's `PaySchedules`: one line each. */

import { Api } from "@svc/contract"
import { PaySchedules, type ScheduleExecution } from "@svc/domain/schedule"
import { Effect, Layer } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { respond, respondSettled } from "./Respond.ts"

/** Either answer of PUT /v2/pay_schedules: the schedule registered (200), or its transaction in flight (202). */
type ScheduleAnswer = ScheduleExecution["result"]

const settledOf = (execution: ScheduleExecution) =>
  execution._tag === "Executed"
    ? { _tag: "Executed" as const, result: execution.result as ScheduleAnswer }
    : { _tag: "InFlight" as const, result: execution.result as ScheduleAnswer }

/** Pay schedules on the chain and the storage. */
export const PayScheduleHandlers = HttpApiBuilder.group(
  Api,
  "paySchedules",
  Effect.fn(function* (handlers) {
    const schedules = yield* PaySchedules
    return handlers.handleAll({
      create: ({ payload }) =>
        respond((me) =>
          Effect.map(schedules.issue(me, payload), ({ bundle, schedule }) => ({
            ...bundle,
            pay_schedule_nanoid: schedule
          }))
        ),
      execute: ({ payload }) => respondSettled((me) => Effect.map(schedules.execute(me, payload), settledOf)),
      list: ({ query }) => respond((me) => Effect.map(schedules.list(me, query.team_nanoid), (items) => ({ items }))),
      get: ({ params }) => respond((me) => schedules.get(me, params.pay_schedule_nanoid)),
      cancel: ({ params }) => respond((me) => schedules.cancel(me, params.pay_schedule_nanoid)),
      cashRequirement: ({ query }) => respond((me) => schedules.cashRequirement(me, query.team_nanoid))
    })
  })
).pipe(Layer.provide(PaySchedules.layer))
