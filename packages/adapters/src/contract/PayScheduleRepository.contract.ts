/**
 * The contract of `PayScheduleRepository`: one record per nanoid; a team's schedules newest first; a due active
 * schedule leased to one runner at a time, the earliest due first, not before it is due nor while another holds it;
 * moved only from the state and instalment it is expected at, and only by its lease holder when one is named; a
 * release that leaves it free again, at once or from a given time.
 */
import { assert, describe, it } from "@effect/vitest"
import type { PayScheduleId } from "@svc/domain/Ids"
import { type PaySchedule, PayScheduleRepository } from "@svc/domain/schedule"
import { Effect, Option } from "effect"
import { teamId, userId, wallet } from "./Fixtures.ts"
import type { StorageUnderTest } from "./Storage.ts"

const scheduleId = (n: number) => `ps-${String(n).padStart(12, "0")}` as PayScheduleId

/** Schedule n of team 1 (team 2 for n > 10), its next instalment due at `1_000 * n`. */
const schedule = (n: number, overrides: Partial<PaySchedule> = {}): PaySchedule => ({
  nanoid: scheduleId(n),
  team_nanoid: teamId(n > 10 ? 2 : 1),
  signer_nanoid: userId(1),
  signer: wallet(1),
  state: "active",
  interval: "weekly",
  first_pay_at: 1_000 * n,
  count: 3,
  valid_minutes: 1_440,
  token: wallet(99),
  token_decimals: 6,
  payees: [
    {
      recipient_nanoid: userId(2),
      recipient: wallet(2),
      amount_cents: 2_500,
      token_amount: "25000000",
      invoice_description: "Salary"
    }
  ],
  onchain_id: `0x${n.toString(16).padStart(64, "0")}`,
  salt: String(n),
  registration_transaction: `0x${"ab".repeat(32)}`,
  registration_block: 100 + n,
  paid_count: 0,
  missed_count: 0,
  next_instalment: 0,
  next_pay_at: 1_000 * n,
  created_at: `2026-01-0${Math.min(n, 9)}T00:00:00.000Z`,
  updated_at: `2026-01-0${Math.min(n, 9)}T00:00:00.000Z`,
  ...overrides
})

/** Registers the suite for `storage`. */
export const payScheduleRepositoryContract = (storage: StorageUnderTest) =>
  describe(`PayScheduleRepository (${storage.name})`, () => {
    it.live("one record per nanoid; a team's schedules newest first", () =>
      Effect.gen(function* () {
        const repository = yield* PayScheduleRepository
        assert.isTrue(yield* repository.insert(schedule(1)))
        assert.isTrue(yield* repository.insert(schedule(2)))
        assert.isTrue(yield* repository.insert(schedule(11)))
        assert.isFalse(yield* repository.insert(schedule(1, { count: 9 })))
        assert.deepStrictEqual(yield* repository.find(scheduleId(1)), Option.some(schedule(1)))
        assert.isTrue(Option.isNone(yield* repository.find(scheduleId(3))))
        assert.deepStrictEqual(
          (yield* repository.listTeam(teamId(1))).map((s) => s.nanoid),
          [scheduleId(2), scheduleId(1)]
        )
        yield* repository.insert(schedule(12, { state: "canceled", team_nanoid: teamId(3) }))
        assert.deepStrictEqual(yield* repository.activeTeams, [teamId(1), teamId(2)])
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a due active schedule is leased to one runner at a time, the earliest due first", () =>
      Effect.gen(function* () {
        const repository = yield* PayScheduleRepository
        yield* repository.insert(schedule(2))
        yield* repository.insert(schedule(1))
        yield* repository.insert(schedule(3, { state: "canceled" }))
        yield* repository.insert(schedule(4, { state: "completed", next_pay_at: null }))
        const nowMillis = Date.now()
        const lease = { now: 2_500, nowMillis, leaseUntil: nowMillis + 60_000 }
        const first = yield* repository.leaseDue(lease)
        assert.strictEqual(first?.schedule.nanoid, scheduleId(1))
        const second = yield* repository.leaseDue(lease)
        assert.strictEqual(second?.schedule.nanoid, scheduleId(2))
        // None left that is due, active and free.
        assert.isUndefined(yield* repository.leaseDue({ ...lease, now: 10_000 }))
        // Released with a time to retry from: not leased before it.
        yield* repository.release(scheduleId(1), first?.lease.holder ?? "", nowMillis + 30_000)
        assert.isUndefined(yield* repository.leaseDue(lease))
        const later = nowMillis + 30_001
        const again = yield* repository.leaseDue({ ...lease, nowMillis: later, leaseUntil: later + 60_000 })
        assert.strictEqual(again?.schedule.nanoid, scheduleId(1))
        assert.notStrictEqual(again?.lease.holder, first?.lease.holder)
        // A lapsed lease is taken over.
        const lapsed = nowMillis + 120_000
        const taken = yield* repository.leaseDue({ ...lease, nowMillis: lapsed, leaseUntil: lapsed + 60_000 })
        assert.include([scheduleId(1), scheduleId(2)], taken?.schedule.nanoid)
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a schedule moves only from where it is expected, and only for its lease holder when named", () =>
      Effect.gen(function* () {
        const repository = yield* PayScheduleRepository
        yield* repository.insert(schedule(1))
        const nowMillis = Date.now()
        const leased = yield* repository.leaseDue({ now: 1_000, nowMillis, leaseUntil: nowMillis + 60_000 })
        const holder = leased?.lease.holder ?? ""
        const paid = { paid_count: 1, next_instalment: 1, next_pay_at: 1_000 + 604_800 }
        const from = { state: "active", next_instalment: 0 } as const
        assert.strictEqual(
          (yield* Effect.flip(repository.advance(scheduleId(1), from, paid, "another")))._tag,
          "StaleState"
        )
        const moved = yield* repository.advance(scheduleId(1), from, paid, holder)
        assert.deepStrictEqual([moved.paid_count, moved.next_instalment, moved.next_pay_at], [1, 1, 605_800])
        // Moved once: the same move again, and a move from where it was, are stale.
        assert.strictEqual((yield* Effect.flip(repository.advance(scheduleId(1), from, paid)))._tag, "StaleState")
        // The lease ended with the move: the schedule is free again once due.
        assert.isUndefined(yield* repository.leaseDue({ now: 1_000, nowMillis, leaseUntil: nowMillis + 60_000 }))
        const due = yield* repository.leaseDue({ now: 605_800, nowMillis, leaseUntil: nowMillis + 60_000 })
        assert.strictEqual(due?.schedule.next_instalment, 1)
        // Cancelled without a lease (the team's request wins over a runner), then nothing moves it.
        const canceled = yield* repository.advance(
          scheduleId(1),
          { state: "active", next_instalment: 1 },
          {
            state: "canceled",
            next_pay_at: null
          }
        )
        assert.strictEqual(canceled.state, "canceled")
        const afterCancel = yield* Effect.flip(
          repository.advance(
            scheduleId(1),
            { state: "active", next_instalment: 1 },
            { paid_count: 2 },
            due?.lease.holder
          )
        )
        assert.strictEqual(afterCancel._tag, "StaleState")
        assert.deepStrictEqual(
          Option.map(yield* repository.find(scheduleId(1)), (s) => [s.state, s.paid_count]),
          Option.some(["canceled", 1])
        )
        assert.isUndefined(yield* repository.leaseDue({ now: 10_000_000, nowMillis, leaseUntil: nowMillis + 60_000 }))
      }).pipe(Effect.provide(storage.layer()))
    )
  })
