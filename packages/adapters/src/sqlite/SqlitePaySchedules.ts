/**
 * Pay schedules in SQLite (`pay_schedules`): the record as JSON beside the columns the runner leases by (state, next
 * instalment and its due time), leased with the adapter's one mechanism (`Leases.ts`) under fencing tokens
 * (decision 0090); every move is `PayScheduleMachine`'s (decision 0091).
 */
import type { TeamId } from "@svc/domain/Ids"
import { fencingTokenOf } from "@svc/domain/Lease"
import { StaleState } from "@svc/domain/StaleState"
import {
  type PaySchedule,
  PayScheduleMachine,
  PayScheduleRepository,
  PaySchedule as PayScheduleSchema
} from "@svc/domain/schedule"
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
    const find = connection.prepare("SELECT record FROM pay_schedules WHERE nanoid = ?")
    const byTeam = connection.prepare(
      "SELECT record FROM pay_schedules WHERE team_nanoid = ? ORDER BY created_at DESC, nanoid DESC"
    )
    const activeTeams = connection.prepare(
      "SELECT DISTINCT team_nanoid FROM pay_schedules WHERE state = 'active' ORDER BY team_nanoid"
    )
    const takeDue = leases.takeMany({
      when: "state = 'active' AND next_pay_at <= :due",
      order: "next_pay_at, nanoid",
      returning: "record"
    })
    const renew = leases.renew()
    const move = connection.prepare(
      `UPDATE pay_schedules SET state = :state, next_instalment = :next, next_pay_at = :nextPayAt, record = :record,
         lease_until = 0
       WHERE nanoid = :nanoid AND state = :fromState AND next_instalment = :fromNext
         AND (:token IS NULL OR lease_token = :token)`
    )
    // Given up until `:retryAt` (0: free now), for the holder of `:token` only.
    const release = leases.whileHeld({ set: "lease_until = :retryAt" })
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
          return row === undefined ? undefined : { schedule: scheduleOf(row), lease: Leases.leaseOf(row, leaseUntil) }
        }),
      renew: (nanoid, token, until) => Effect.sync(() => Option.fromNullishOr(renew({ nanoid, token, until }))),
      transition: (nanoid, from, to, patch, token) =>
        Effect.gen(function* () {
          yield* PayScheduleMachine.move(from.state, to).pipe(Effect.orDie)
          const moved = transaction(() => {
            const row = find.get(nanoid)
            if (row === undefined) return undefined
            const next: PaySchedule = { ...scheduleOf(row), ...patch, state: to }
            const changed = move.run({
              nanoid,
              state: to,
              next: next.next_instalment,
              nextPayAt: next.next_pay_at,
              record: JSON.stringify(next),
              fromState: from.state,
              fromNext: from.next_instalment,
              token: token === undefined ? null : fencingTokenOf(token)
            }).changes
            return changed === 1 ? next : undefined
          })
          if (moved !== undefined) return moved
          return yield* new StaleState({
            resource: "pay_schedule",
            id: nanoid,
            expected: `${from.state} at instalment ${from.next_instalment}`
          })
        }),
      release: (nanoid, token, retryAt) => Effect.sync(() => void release({ nanoid, token, retryAt: retryAt ?? 0 }))
    })
  })
)
