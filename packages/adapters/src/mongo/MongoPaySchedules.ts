/**
 * Pay schedules in MongoDB (`pay_schedules`, `_id` = nanoid): the record's fields and the lease's (`Leases.ts`). A
 * schedule is leased with one conditional `findOneAndUpdate` under a fencing token (decision 0090), and moved with
 * another, `PayScheduleMachine`'s moves only (decision 0091), in the use case's unit of work when it runs in one.
 */
import type { TeamId } from "@svc/domain/Ids"
import { StaleState } from "@svc/domain/StaleState"
import { PaySchedule, PayScheduleMachine, PayScheduleRepository } from "@svc/domain/schedule"
import { Effect, Layer, Option } from "effect"
import type { UpdateFilter } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { recordDecoder } from "./MongoDocuments.ts"
import { isDuplicateKey, toPort, tryMongo } from "./MongoErrors.ts"
import { unitOptions } from "./MongoTransaction.ts"

interface ScheduleDocument extends PaySchedule, Leases.LeaseFields {
  _id: string
}

const scheduleOf: (doc: object) => PaySchedule = recordDecoder("pay_schedules", PaySchedule)

/** The MongoDB pay schedule repository. */
export const layer = Layer.effect(
  PayScheduleRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const schedules = db.collection<ScheduleDocument>("pay_schedules")
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          schedules.createIndex({ team_nanoid: 1, created_at: -1, _id: -1 }),
          schedules.createIndex({ state: 1, next_pay_at: 1 })
        ])
      )
    )
    const leases = Leases.on(schedules)
    return PayScheduleRepository.of({
      insert: (schedule) =>
        Effect.gen(function* () {
          const options = yield* unitOptions
          return yield* Effect.tryPromise({
            try: () => schedules.insertOne({ ...schedule, _id: schedule.nanoid, lease_until: 0 }, options),
            catch: (error) => error
          }).pipe(
            Effect.as(true),
            Effect.catch((error) =>
              isDuplicateKey(error) ? Effect.succeed(false) : tryMongo(() => Promise.reject(error))
            )
          )
        }).pipe(toPort),
      find: (nanoid) =>
        tryMongo(() => schedules.findOne({ _id: nanoid })).pipe(
          Effect.map((doc) => (doc === null ? Option.none() : Option.some(scheduleOf(doc)))),
          toPort
        ),
      listTeam: (team) =>
        tryMongo(() => schedules.find({ team_nanoid: team }).sort({ created_at: -1, _id: -1 }).toArray()).pipe(
          Effect.map((docs) => docs.map(scheduleOf)),
          toPort
        ),
      activeTeams: tryMongo(() => schedules.distinct("team_nanoid", { state: "active" })).pipe(
        Effect.map((teams) => [...teams].sort() as ReadonlyArray<TeamId>),
        toPort
      ),
      leaseDue: ({ leaseUntil, now, nowMillis }) =>
        leases
          .takeNext(
            { state: "active", next_pay_at: { $ne: null, $lte: now } },
            { sort: { next_pay_at: 1, _id: 1 }, now: nowMillis, until: leaseUntil }
          )
          .pipe(
            Effect.map((taken) =>
              taken === null ? undefined : { schedule: scheduleOf(taken.doc), lease: taken.lease }
            ),
            toPort
          ),
      renew: (nanoid, token, until) =>
        leases.renew({ _id: nanoid }, token, until).pipe(Effect.map(Option.fromNullishOr), toPort),
      transition: (nanoid, from, to, patch, token) =>
        Effect.gen(function* () {
          yield* PayScheduleMachine.move(from.state, to).pipe(Effect.orDie)
          const options = yield* unitOptions
          const moved = yield* tryMongo(() =>
            schedules.findOneAndUpdate(
              {
                _id: nanoid,
                state: from.state,
                next_instalment: from.next_instalment,
                ...(token === undefined ? {} : { lease_token: token })
              },
              { $set: { ...patch, state: to, lease_until: 0 } } as UpdateFilter<ScheduleDocument>,
              { ...options, returnDocument: "after" }
            )
          )
          if (moved !== null) return scheduleOf(moved)
          return yield* new StaleState({
            resource: "pay_schedule",
            id: nanoid,
            expected: `${from.state} at instalment ${from.next_instalment}`
          })
        }).pipe(toPort),
      release: (nanoid, token, retryAt) =>
        leases
          .whileHeld({ _id: nanoid }, token, { $set: { lease_until: retryAt ?? 0 } } as UpdateFilter<ScheduleDocument>)
          .pipe(Effect.asVoid, toPort)
    })
  })
)
