/**
 * The contract of `PayScheduleRepository`: one record per nanoid; a team's schedules newest first; a due active
 * schedule leased to one runner at a time, the earliest due first, not before it is due nor while another holds it;
 * moved only from the state and instalment it is expected at, and only by its lease holder when one is named; a
 * release that leaves it free again, at once or from a given time.
 */
import { assert, describe, it } from "@effect/vitest"
import type { InvoiceId, PayScheduleId } from "@svc/domain/Ids"
import { fencingTokenOf } from "@svc/domain/Lease"
import { type PaySchedule, PayScheduleRepository } from "@svc/domain/schedule"
import { Cause, Effect, Option } from "effect"
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
    },
    // A payee paid by an invoice in instalments (decision 0117).
    {
      recipient_nanoid: userId(3),
      recipient: wallet(3),
      amount_cents: 1_000,
      token_amount: "10000000",
      invoice_description: "Invoice C-1",
      invoice_nanoid: `iv-${String(n).padStart(12, "0")}` as InvoiceId
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
        // Renewed under its token; a renewal naming another token changes nothing.
        const token = first?.lease.token ?? fencingTokenOf(0)
        assert.isTrue(Option.isSome(yield* repository.renew(scheduleId(1), token, nowMillis + 90_000)))
        assert.isTrue(Option.isNone(yield* repository.renew(scheduleId(1), fencingTokenOf(token + 1), nowMillis)))
        // Released with a time to retry from: not leased before it.
        yield* repository.release(scheduleId(1), token, nowMillis + 30_000)
        assert.isUndefined(yield* repository.leaseDue(lease))
        const later = nowMillis + 30_001
        const again = yield* repository.leaseDue({ ...lease, nowMillis: later, leaseUntil: later + 60_000 })
        assert.strictEqual(again?.schedule.nanoid, scheduleId(1))
        // Each new holder's token is larger than every earlier one; the old holder's release changes nothing now.
        assert.isAbove(again?.lease.token ?? 0, token)
        yield* repository.release(scheduleId(1), token)
        assert.isUndefined(yield* repository.leaseDue({ ...lease, nowMillis: later, leaseUntil: later + 60_000 }))
        // A lapsed lease is taken over.
        const lapsed = nowMillis + 120_000
        const taken = yield* repository.leaseDue({ ...lease, nowMillis: lapsed, leaseUntil: lapsed + 60_000 })
        assert.include([scheduleId(1), scheduleId(2)], taken?.schedule.nanoid)
      }).pipe(Effect.provide(storage.layer()))
    )

    it.live("a schedule moves only by its machine, from the state it leaves, under its lease's token when named", () =>
      Effect.gen(function* () {
        const repository = yield* PayScheduleRepository
        yield* repository.insert(schedule(1))
        const nowMillis = Date.now()
        const leased = yield* repository.leaseDue({ now: 1_000, nowMillis, leaseUntil: nowMillis + 60_000 })
        const token = leased?.lease.token ?? fencingTokenOf(0)
        const paid = { paid_count: 1, next_instalment: 1, next_pay_at: 1_000 + 604_800 }
        const from = { state: "active", next_instalment: 0 } as const
        const other = fencingTokenOf(token + 1)
        const stale = yield* Effect.flip(repository.transition(scheduleId(1), from, "active", paid, other))
        assert.strictEqual(stale._tag, "StaleState")
        const moved = yield* repository.transition(scheduleId(1), from, "active", paid, token)
        assert.deepStrictEqual([moved.paid_count, moved.next_instalment, moved.next_pay_at], [1, 1, 605_800])
        // Moved once: the same move again, and a move from where it was, are stale.
        const again = yield* Effect.flip(repository.transition(scheduleId(1), from, "active", paid))
        assert.strictEqual(again._tag, "StaleState")
        // The lease ended with the move: the schedule is free again once due.
        assert.isUndefined(yield* repository.leaseDue({ now: 1_000, nowMillis, leaseUntil: nowMillis + 60_000 }))
        const due = yield* repository.leaseDue({ now: 605_800, nowMillis, leaseUntil: nowMillis + 60_000 })
        assert.strictEqual(due?.schedule.next_instalment, 1)
        // Cancelled without a lease (the team's request wins over a runner), then nothing moves it.
        const step = { state: "active", next_instalment: 1 } as const
        const canceled = yield* repository.transition(scheduleId(1), step, "canceled", { next_pay_at: null })
        assert.strictEqual(canceled.state, "canceled")
        const afterCancel = yield* Effect.flip(
          repository.transition(scheduleId(1), step, "active", { paid_count: 2 }, due?.lease.token)
        )
        assert.strictEqual(afterCancel._tag, "StaleState")
        assert.deepStrictEqual(
          Option.map(yield* repository.find(scheduleId(1)), (s) => [s.state, s.paid_count]),
          Option.some(["canceled", 1])
        )
        assert.isUndefined(yield* repository.leaseDue({ now: 10_000_000, nowMillis, leaseUntil: nowMillis + 60_000 }))
        // A move outside the machine's table (out of a terminal state) is a defect, on every store.
        const outside = yield* Effect.exit(
          repository.transition(scheduleId(1), { state: "canceled", next_instalment: 1 }, "active", {})
        )
        assert.isTrue(outside._tag === "Failure" && Cause.hasDies(outside.cause))
      }).pipe(Effect.provide(storage.layer()))
    )
  })
