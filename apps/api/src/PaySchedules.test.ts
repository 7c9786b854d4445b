/**
 * Pay schedules end to end over real HTTP (issue 37), each test on an anvil of its own (its time travels) and a server
 * on SQLite: a schedule signed once and paid every period, announced once each; cancelled for good on chain; ended with
 * its signer, and by blocking a payee; a cash requirement announced once, then paid after a deposit; two runners, and a runner that died after
 * paying, pay once. Later instalments move anvil's time and the server's clock together (`shifted`).
 */
import { assert, describe, it } from "@effect/vitest"
import { eventually } from "@svc/adapters/test/Eventually"
import { InstalmentRunner } from "@svc/domain/schedule"
import { Effect, Exit, Layer, Scope } from "effect"
import type { Hex } from "viem"
import {
  completePayments,
  createSchedule,
  eventCount,
  fixture,
  payrollTeam,
  scheduleOf,
  travelAndRun,
  units,
  week
} from "../test/Payroll.ts"
import { call } from "../test/TestServer.ts"
import { startReceiver } from "../test/WebhookReceiver.ts"

describe("pay schedules on anvil", { timeout: 120_000 }, () => {
  it.live(
    "three weekly instalments to two members: the first paid once, within a block of its due time, and announced once; all three after time travel",
    () =>
      Effect.gen(function* () {
        const f = yield* fixture
        const t = yield* payrollTeam(f, 1_000_00)
        const receiver = yield* startReceiver()
        const hook = yield* call(f.server, "POST", "/v2/webhooks", {
          token: t.ownerToken,
          body: {
            team_nanoid: t.team,
            url: receiver.url,
            events: ["payment.subscription.created", "payment.subscription.paid"],
            name: "payroll"
          }
        })
        assert.strictEqual(hook.status, 200, JSON.stringify(hook.body))
        const first = Math.floor(Date.now() / 1000) + 4
        const schedule = yield* createSchedule(f, t, { first, count: 3, cents: [2500, 1000] })
        assert.deepStrictEqual([schedule.state, schedule.paid_count, schedule.remaining_count], ["active", 0, 3])

        // The runner as `npm start` runs it, polling every second, until the first instalment is paid.
        const runner = yield* Scope.make()
        yield* Layer.buildWithScope(
          InstalmentRunner.layer().pipe(Layer.provide(Layer.succeedContext(f.server.context))),
          runner
        )
        yield* eventually(
          Effect.map(completePayments(f, t), (items) => items.length === 2),
          {
            what: "the first instalment's two payments",
            every: "100 millis"
          }
        )
        const paid = yield* completePayments(f, t)
        assert.deepStrictEqual(
          paid.map((p) => [p.payment.pay_schedule_nanoid, p.payment.instalment, p.payment.amount_cents]).sort(),
          [
            [schedule.nanoid, 0, 1000],
            [schedule.nanoid, 0, 2500]
          ]
        )
        const late = (yield* f.blockTimeOf(paid[0].payment.process_transaction as Hex)) - first
        yield* Effect.logInfo(`instalment 0 paid ${late} s after its due time`)
        assert.isAtLeast(late, 0)
        assert.isAtMost(late, 2)

        const listed = yield* call(f.server, "GET", `/v2/pay_schedules?team_nanoid=${t.team}`, { token: t.token })
        const item = listed.body.data.items[0]
        assert.deepStrictEqual(
          [item.paid_count, item.remaining_count, item.next_pay_at],
          [1, 2, new Date((first + week) * 1000).toISOString()]
        )
        const delivered = yield* receiver.waitFor(2)
        assert.deepStrictEqual(delivered.map((r) => JSON.parse(r.body).event_type).sort(), [
          "payment.subscription.created",
          "payment.subscription.paid"
        ])
        assert.strictEqual(yield* eventCount(f.server, "payment.subscription.paid"), 1)
        yield* Scope.close(runner, Exit.void)

        // Later instalments: anvil's time and the server's clock a week on, then two.
        const second = yield* travelAndRun(f, first + week)
        assert.deepStrictEqual(
          second.filter((r) => r.schedule.nanoid === schedule.nanoid).map((r) => [r.n, r.run]),
          [[1, "paid"]]
        )
        const third = yield* travelAndRun(f, first + 2 * week)
        assert.deepStrictEqual(
          third.filter((r) => r.schedule.nanoid === schedule.nanoid).map((r) => [r.n, r.run]),
          [[2, "paid"]]
        )
        const done = yield* scheduleOf(f, t, schedule.nanoid)
        assert.deepStrictEqual(
          [done.state, done.paid_count, done.remaining_count, done.next_pay_at],
          ["completed", 3, 0, null]
        )
        assert.strictEqual((yield* completePayments(f, t)).length, 6)
        assert.deepStrictEqual(
          [yield* f.gateway.balanceOf(t.employeeAccount), yield* f.gateway.balanceOf(t.contractorAccount)],
          [units(7500), units(3000)]
        )
        assert.strictEqual(yield* eventCount(f.server, "payment.subscription.paid"), 3)
        assert.strictEqual(yield* eventCount(f.server, "payment.subscription.created"), 1)
      }).pipe(Effect.scoped, Effect.orDie)
  )

  it.live("cancelling stops a schedule on chain; removing its signer cancels theirs", () =>
    Effect.gen(function* () {
      const f = yield* fixture
      const t = yield* payrollTeam(f, 1_000_00)
      const first = Math.floor(Date.now() / 1000) + 3_600
      const canceled = yield* createSchedule(f, t, { first, count: 3, cents: [100, 100] })
      const signed = yield* createSchedule(f, t, { first, count: 3, cents: [200, 200] })
      // A manager is not paid by a schedule, as by a batch: refused before anything is issued.
      const manager = yield* call(f.server, "POST", "/v2/pay_schedules", {
        token: t.token,
        body: {
          team_nanoid: t.team,
          to: [{ to: t.owner.user, amount_cents: 100 }],
          interval: "weekly",
          first_pay_at: new Date(first * 1000).toISOString(),
          count: 1
        }
      })
      assert.deepStrictEqual([manager.status, manager.body.error_code], [400, "INVALID_RECIPIENT"])
      const deleted = yield* call(f.server, "DELETE", `/v2/pay_schedules/${canceled.nanoid}`, { token: t.token })
      assert.strictEqual(deleted.status, 200, JSON.stringify(deleted.body))
      assert.strictEqual(deleted.body.data.state, "canceled")
      const again = yield* call(f.server, "DELETE", `/v2/pay_schedules/${canceled.nanoid}`, { token: t.token })
      assert.deepStrictEqual([again.status, again.body.error_code], [409, "INVALID_STATE_TRANSITION"])
      yield* f.setTime(first + 1)
      const direct = yield* Effect.flip(f.gateway.executeInstalment(t.account, canceled.onchain_id as Hex, 0))
      assert.strictEqual(direct._tag, "ScheduleNotActive")

      const removed = yield* call(f.server, "DELETE", `/v2/teams/${t.team}/member/${t.financeUser}`, {
        token: t.ownerToken
      })
      assert.strictEqual(removed.status, 200, JSON.stringify(removed.body))
      const ended = yield* call(f.server, "GET", `/v2/pay_schedules/${signed.nanoid}`, { token: t.ownerToken })
      assert.strictEqual(ended.body.data.state, "canceled")
      assert.isFalse((yield* f.gateway.schedule(t.account, signed.onchain_id as Hex))?.active)
      assert.strictEqual(yield* eventCount(f.server, "payment.canceled"), 2)
      assert.deepStrictEqual(
        [yield* f.gateway.balanceOf(t.employeeAccount), yield* f.gateway.balanceOf(t.contractorAccount)],
        [0n, 0n]
      )
    }).pipe(Effect.scoped, Effect.orDie)
  )

  it.live("blocking a payee cancels the schedules that pay them, on chain and in the record, once", () =>
    Effect.gen(function* () {
      const f = yield* fixture
      const t = yield* payrollTeam(f, 1_000_00)
      const first = Math.floor(Date.now() / 1000) + 3_600
      const schedule = yield* createSchedule(f, t, { first, count: 3, cents: [100, 100] })
      const blocked = yield* call(f.server, "PUT", `/v2/teams/${t.team}/member/${t.contractor.user}/block`, {
        token: t.ownerToken,
        body: { blocked: true, reason: "Left the company" }
      })
      assert.strictEqual(blocked.status, 200, JSON.stringify(blocked.body))
      const ended = yield* call(f.server, "GET", `/v2/pay_schedules/${schedule.nanoid}`, { token: t.ownerToken })
      assert.strictEqual(ended.body.data.state, "canceled")
      assert.isFalse((yield* f.gateway.schedule(t.account, schedule.onchain_id as Hex))?.active)
      assert.strictEqual(yield* eventCount(f.server, "payment.canceled"), 1)
      yield* f.setTime(first + 1)
      const direct = yield* Effect.flip(f.gateway.executeInstalment(t.account, schedule.onchain_id as Hex, 0))
      assert.strictEqual(direct._tag, "ScheduleNotActive")
    }).pipe(Effect.scoped, Effect.orDie)
  )
})
