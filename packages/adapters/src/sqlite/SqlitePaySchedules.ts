/**
 * Pay schedules in SQLite (`pay_schedules`): the record as JSON beside the columns the runner leases by (state, next
 * instalment and its due time), leased with the adapter's one mechanism (`Leases.ts`).
 */
import type { TeamId } from "@svc/domain/Ids"
import { StaleState } from "@svc/domain/StaleState"
import { type PaySchedule, PayScheduleRepository, PaySchedule as PayScheduleSchema } from "@svc/domain/schedule"
import { Effect, Layer, Option } from "effect"
import * as Leases from "./Leases.ts"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

const decodeSchedule = RowDecoder.records("pay_schedules", PayScheduleSchema, RowDecoder.smallMemoSize)
const scheduleOf = (row: Record<string, unknown>): PaySchedule => decodeSchedule(row.record)

/** The SQLite pay schedule repository. */
export const layer = Layer.effect(
  PayScheduleRepository,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const leases = Leases.on(connection, { table: "pay_schedules", row: "nanoid = :nanoid", key: "nanoid" })
    const insert = connection.prepare(
      `INSERT INTO pay_schedules (nanoid, team_nanoid, state, next_instalment, next_pay_at, created_at, record)
       VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (nanoid) DO NOTHING`
    )
    const find = connection.prepare("SELECT record, lease_holder FROM pay_schedules WHERE nanoid = ?")
    const byTeam = connection.prepare(
      "SELECT record FROM pay_schedules WHERE team_nanoid = ? ORDER BY created_at DESC, nanoid DESC"
    )
    const activeTeams = connection.prepare(
      "SELECT DISTINCT team_nanoid FROM pay_schedules WHERE state = 'active' ORDER BY team_nanoid"
    )
    const takeDue = leases.takeMany({
      when: "state = 'active' AND next_pay_at <= :due",
      order: "next_pay_at, nanoid",
      returning: "record, lease_holder"
    })
    const move = connection.prepare(
      `UPDATE pay_schedules SET state = :state, next_instalment = :next, next_pay_at = :nextPayAt, record = :record,
         lease_holder = NULL, lease_until = 0
       WHERE nanoid = :nanoid AND state = :fromState AND next_instalment = :fromNext
         AND (:holder IS NULL OR lease_holder = :holder)`
    )
    const release = connection.prepare(
      "UPDATE pay_schedules SET lease_holder = NULL, lease_until = :retryAt WHERE nanoid = :nanoid AND lease_holder = :holder"
    )
    return PayScheduleRepository.of({
      insert: (schedule) =>
        Effect.sync(
          () =>
            insert.run(
              schedule.nanoid,
              schedule.team_nanoid,
              schedule.state,
              schedule.next_instalment,
              schedule.next_pay_at,
              schedule.created_at,
              JSON.stringify(schedule)
            ).changes === 1
        ),
      find: (nanoid) =>
        Effect.sync(() => {
          const row = find.get(nanoid)
          return row === undefined ? Option.none() : Option.some(scheduleOf(row))
        }),
      listTeam: (team) => Effect.sync(() => byTeam.all(team).map(scheduleOf)),
      activeTeams: Effect.sync(() => activeTeams.all().map((row) => row.team_nanoid as TeamId)),
      leaseDue: ({ leaseUntil, now, nowMillis }) =>
        Effect.sync(() => {
          const [row] = takeDue({ now: nowMillis, until: leaseUntil, due: now, limit: 1 })
          return row === undefined
            ? undefined
            : { schedule: scheduleOf(row), lease: { holder: String(row.lease_holder), until: leaseUntil } }
        }),
      advance: (nanoid, from, patch, holder) =>
        Effect.suspend(() => {
          const moved = transaction(() => {
            const row = find.get(nanoid)
            if (row === undefined) return undefined
            const next = { ...scheduleOf(row), ...patch }
            const changed = move.run({
              nanoid,
              state: next.state,
              next: next.next_instalment,
              nextPayAt: next.next_pay_at,
              record: JSON.stringify(next),
              fromState: from.state,
              fromNext: from.next_instalment,
              holder: holder ?? null
            }).changes
            return changed === 1 ? next : undefined
          })
          return moved === undefined
            ? Effect.fail(
                new StaleState({
                  resource: "pay_schedule",
                  id: nanoid,
                  expected: `${from.state} at instalment ${from.next_instalment}`
                })
              )
            : Effect.succeed(moved)
        }),
      release: (nanoid, holder, retryAt) =>
        Effect.sync(() => void release.run({ nanoid, holder, retryAt: retryAt ?? 0 }))
    })
  })
)
