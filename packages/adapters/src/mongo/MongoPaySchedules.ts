/**
 * Pay schedules in MongoDB (`pay_schedules`, `_id` = nanoid): the record's fields and the lease's (`Leases.ts`). A
 * schedule is leased with one conditional `updateOne`, and moved with another (in the use case's unit of work when it
 * runs in one).
 */
import type { TeamId } from "@svc/domain/Ids"
import { StaleState } from "@svc/domain/StaleState"
import { PaySchedule, PayScheduleRepository } from "@svc/domain/schedule"
import { Effect, Layer, Option } from "effect"
import type { ClientSession, Document, UpdateFilter } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { recordDecoder } from "./MongoDocuments.ts"
import { isDuplicateKey } from "./MongoErrors.ts"
import { inUnitOr } from "./MongoTransaction.ts"

interface ScheduleDocument extends PaySchedule, Leases.LeaseFields {
  _id: string
}

const scheduleOf: (doc: Document) => PaySchedule = recordDecoder("pay_schedules", PaySchedule)

/** The MongoDB pay schedule repository. */
export const layer = Layer.effect(
  PayScheduleRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const schedules = db.collection<ScheduleDocument>("pay_schedules")
    yield* Effect.promise(() => schedules.createIndex({ team_nanoid: 1, created_at: -1, _id: -1 }))
    yield* Effect.promise(() => schedules.createIndex({ state: 1, next_pay_at: 1 }))
    const leases = Leases.on(schedules)
    const options = (session?: ClientSession) => (session === undefined ? {} : { session })
    return PayScheduleRepository.of({
      insert: (schedule) => {
        const insert = (session?: ClientSession) =>
          Effect.promise(() =>
            schedules.insertOne({ ...schedule, _id: schedule.nanoid, lease_until: 0 }, options(session)).then(
              () => true,
              (error: unknown) => {
                if (isDuplicateKey(error)) return false
                throw error
              }
            )
          )
        return inUnitOr(insert, insert())
      },
      find: (nanoid) =>
        Effect.promise(() => schedules.findOne({ _id: nanoid })).pipe(
          Effect.map((doc) => (doc === null ? Option.none() : Option.some(scheduleOf(doc))))
        ),
      listTeam: (team) =>
        Effect.promise(() => schedules.find({ team_nanoid: team }).sort({ created_at: -1, _id: -1 }).toArray()).pipe(
          Effect.map((docs) => docs.map(scheduleOf))
        ),
      activeTeams: Effect.promise(() => schedules.distinct("team_nanoid", { state: "active" })).pipe(
        Effect.map((teams) => [...teams].sort() as ReadonlyArray<TeamId>)
      ),
      leaseDue: ({ leaseUntil, now, nowMillis }) =>
        Effect.promise(async () => {
          const holder = Leases.newHolder()
          const doc = await leases.takeNext(
            { state: "active", next_pay_at: { $ne: null, $lte: now } },
            { sort: { next_pay_at: 1, _id: 1 }, now: nowMillis, until: leaseUntil, holder }
          )
          return doc === null ? undefined : { schedule: scheduleOf(doc), lease: { holder, until: leaseUntil } }
        }),
      advance: (nanoid, from, patch, holder) => {
        const move = (session?: ClientSession) =>
          Effect.promise(async () => {
            const { matchedCount } = await schedules.updateOne(
              {
                _id: nanoid,
                state: from.state,
                next_instalment: from.next_instalment,
                ...(holder === undefined ? {} : { lease_holder: holder })
              },
              {
                $set: { ...patch, lease_until: 0 },
                $unset: { lease_holder: "" }
              } as unknown as UpdateFilter<ScheduleDocument>,
              options(session)
            )
            if (matchedCount !== 1) return undefined
            const doc = await schedules.findOne({ _id: nanoid }, options(session))
            return doc === null ? undefined : scheduleOf(doc)
          }).pipe(
            Effect.flatMap((moved) =>
              moved === undefined
                ? Effect.fail(
                    new StaleState({
                      resource: "pay_schedule",
                      id: nanoid,
                      expected: `${from.state} at instalment ${from.next_instalment}`
                    })
                  )
                : Effect.succeed(moved)
            )
          )
        return inUnitOr(move, move())
      },
      release: (nanoid, holder, retryAt) =>
        Effect.promise(() =>
          schedules.updateOne({ _id: nanoid, lease_holder: holder }, {
            $set: { lease_until: retryAt ?? 0 },
            $unset: { lease_holder: "" }
          } as unknown as UpdateFilter<ScheduleDocument>)
        ).pipe(Effect.asVoid)
    })
  })
)
