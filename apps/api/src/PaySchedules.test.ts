/**
 * Pay schedules end to end over real HTTP (issue 37), each test on an anvil of its own (its time travels) and a server
 * on SQLite: a schedule signed once and paid every period, announced once each; cancelled for good on chain; ended with
 * its signer, and by blocking a payee; a cash requirement announced once, then paid after a deposit; two runners, and a runner that died after
 * paying, pay once. Later instalments move anvil's time and the server's clock together (`shifted`).
 */
import { assert, describe, it } from "@effect/vitest"
import { eventually } from "@svc/adapters/test/Eventually"
import { InstalmentRunner, reconcileCanceled } from "@svc/domain/schedule"
import { Effect, Exit, Layer, Scope } from "effect"
import type { Hex } from "viem"
import {
  completePayments,
  createSchedule,
  eventCount,
  fixture,
  type Json,
  payrollTeam,
  scheduleBody,
  scheduleOf,
  signedSchedule,
  travelAndRun,
  units,
  week
} from "../test/Payroll.ts"
import { call, signIn } from "../test/TestServer.ts"
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

  it.live(
    "cancelling stops a schedule on chain; a cancellation whose record was lost is reconciled; removing its signer cancels theirs",
    () =>
      Effect.gen(function* () {
        const f = yield* fixture
        const t = yield* payrollTeam(f, 1_000_00)
        const first = Math.floor(Date.now() / 1000) + 3_600
        const canceled = yield* createSchedule(f, t, { first, count: 3, cents: [100, 100] })
        const signed = yield* createSchedule(f, t, { first, count: 3, cents: [200, 200] })
        const lost = yield* createSchedule(f, t, { first, count: 3, cents: [300, 300] })
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
        // A DELETE whose process died after the chain canceled it: the runner's reconciliation records it canceled.
        yield* f.gateway.cancelSchedules(t.account, [lost.onchain_id as Hex])
        assert.strictEqual((yield* scheduleOf(f, t, lost.nanoid)).state, "active")
        const reconciled = yield* reconcileCanceled().pipe(Effect.provide(f.server.context))
        assert.strictEqual(reconciled, 1)
        assert.strictEqual((yield* scheduleOf(f, t, lost.nanoid)).state, "canceled")
        assert.strictEqual(yield* reconcileCanceled().pipe(Effect.provide(f.server.context)), 0)

        const removed = yield* call(f.server, "DELETE", `/v2/teams/${t.team}/member/${t.financeUser}`, {
          token: t.ownerToken
        })
        assert.strictEqual(removed.status, 200, JSON.stringify(removed.body))
        const ended = yield* call(f.server, "GET", `/v2/pay_schedules/${signed.nanoid}`, { token: t.ownerToken })
        assert.strictEqual(ended.body.data.state, "canceled")
        assert.isFalse((yield* f.gateway.schedule(t.account, signed.onchain_id as Hex))?.active)
        assert.strictEqual(yield* eventCount(f.server, "payment.canceled"), 3)
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
      // A blocked member is not named in a new schedule either, as a batch does not pay them.
      const again = yield* call(f.server, "POST", "/v2/pay_schedules", {
        token: t.token,
        body: scheduleBody(t, { first, count: 1, to: [{ to: t.contractor.user, amount_cents: 100 }] })
      })
      assert.deepStrictEqual([again.status, again.body.error_code], [409, "MEMBER_BLOCKED"])
      yield* f.setTime(first + 1)
      const direct = yield* Effect.flip(f.gateway.executeInstalment(t.account, schedule.onchain_id as Hex, 0))
      assert.strictEqual(direct._tag, "ScheduleNotActive")
    }).pipe(Effect.scoped, Effect.orDie)
  )
  it.live(
    "a schedule pays a contractor's invoice in instalments: held while active, partially paid, then paid, the payments carrying it",
    () =>
      Effect.gen(function* () {
        const f = yield* fixture
        const t = yield* payrollTeam(f, 1_000_00)
        const contractorToken = yield* signIn(f.server, t.contractor.account)
        const submit = (number: string) =>
          Effect.map(
            call(f.server, "POST", "/v2/invoices", {
              token: contractorToken,
              body: { team_nanoid: t.team, invoice_number: number, amount_cents: 3_000, invoice_description: "Audit" }
            }),
            (r) => {
              assert.strictEqual(r.status, 200, JSON.stringify(r.body))
              return r.body.data.nanoid as string
            }
          )
        const invoice = yield* submit("C-1")
        const invoiceOf = (nanoid: string) =>
          Effect.map(call(f.server, "GET", `/v2/invoices/${nanoid}`, { token: t.token }), (r) => r.body.data as Json)
        const first = Math.floor(Date.now() / 1000) + 3_600
        const issue = (to: ReadonlyArray<Json>, count: number) =>
          call(f.server, "POST", "/v2/pay_schedules", { token: t.token, body: scheduleBody(t, { first, count, to }) })
        // All the instalments together pay at most what is left, and an even split needs no amount.
        const over = yield* issue([{ invoice_nanoid: invoice, amount_cents: 1_001 }], 3)
        assert.deepStrictEqual(
          [over.status, over.body.error_code, over.body.data],
          [409, "INVOICE_NOT_PAYABLE", `${invoice} has 3000 cents left to pay; 3 instalments of 1001 cents pay 3003`]
        )
        const uneven = yield* issue([{ invoice_nanoid: invoice }], 7)
        assert.deepStrictEqual([uneven.status, uneven.body.error_code], [409, "INVOICE_NOT_PAYABLE"])
        const twice = yield* issue([{ invoice_nanoid: invoice }, { to: t.contractor.user, amount_cents: 100 }], 3)
        assert.deepStrictEqual([twice.status, twice.body.error_code], [400, "INVALID_RECIPIENT"])

        // Issued and signed now, sent after another schedule holds the invoice: refused when its send is claimed.
        const early = yield* issue([{ invoice_nanoid: invoice }], 3)
        const { nanoid: earlyId, put: earlyPut } = yield* signedSchedule(t, early.body.data)
        const schedule = yield* createSchedule(f, t, { first, count: 3, to: [{ invoice_nanoid: invoice }] })
        const late = yield* call(f.server, "PUT", "/v2/pay_schedules", { token: t.token, body: earlyPut })
        assert.deepStrictEqual(
          [late.status, late.body.error_code, late.body.data],
          [409, "INVOICE_NOT_PAYABLE", `${invoice} is being paid in instalments by pay schedule ${schedule.nanoid}`]
        )
        const never = yield* call(f.server, "GET", `/v2/pay_schedules/${earlyId}`, { token: t.token })
        assert.strictEqual(never.status, 404)
        assert.deepStrictEqual(schedule.recipients, [
          {
            user_nanoid: t.contractor.user,
            amount_cents: 1_000,
            invoice_description: "Invoice C-1: Audit",
            invoice_nanoid: invoice
          }
        ])
        // Held for the schedule, as its reading says: its author cannot cancel it, and no other payment pays it.
        assert.deepStrictEqual((yield* invoiceOf(invoice)).held_by, { kind: "pay_schedule", nanoid: schedule.nanoid })
        const cancel = yield* call(f.server, "DELETE", `/v2/invoices/${invoice}`, { token: contractorToken })
        assert.deepStrictEqual([cancel.status, cancel.body.error_code], [409, "INVALID_STATE_TRANSITION"])
        const pay = yield* call(f.server, "POST", "/v2/payments", {
          token: t.token,
          body: { from: t.team, to: [{ invoice_nanoid: invoice }], pay_now: true }
        })
        assert.deepStrictEqual(
          [pay.status, pay.body.error_code, pay.body.data],
          [409, "INVOICE_NOT_PAYABLE", `${invoice} is being paid in instalments by pay schedule ${schedule.nanoid}`]
        )

        // A schedule canceled lets its invoice go: its author may cancel it again.
        const other = yield* submit("C-2")
        const ended = yield* createSchedule(f, t, {
          first,
          count: 2,
          to: [{ invoice_nanoid: other }]
        })
        const deleted = yield* call(f.server, "DELETE", `/v2/pay_schedules/${ended.nanoid}`, { token: t.token })
        assert.strictEqual(deleted.status, 200, JSON.stringify(deleted.body))
        const withdrawn = yield* call(f.server, "DELETE", `/v2/invoices/${other}`, { token: contractorToken })
        assert.strictEqual(withdrawn.status, 200, JSON.stringify(withdrawn.body))
        assert.strictEqual((yield* invoiceOf(other)).invoice_status, "canceled")

        const run = (time: number) =>
          Effect.map(travelAndRun(f, time), (runs) =>
            runs.filter((r) => r.schedule.nanoid === schedule.nanoid).map((r) => [r.n, r.run])
          )
        assert.deepStrictEqual(yield* run(first), [[0, "paid"]])
        const part = yield* invoiceOf(invoice)
        const [paid] = yield* completePayments(f, t)
        assert.deepStrictEqual(
          [part.invoice_status, part.paid_cents, part.payments.map((p: Json) => [p.payment_nanoid, p.transaction])],
          ["partially_paid", 1_000, [[paid.payment.nanoid, paid.payment.process_transaction]]]
        )
        assert.deepInclude(paid.invoice, { nanoid: invoice, invoice_number: "C-1", synthesized: false })
        assert.strictEqual(yield* f.gateway.balanceOf(t.contractorAccount), units(1_000))
        assert.deepStrictEqual(yield* run(first + week), [[1, "paid"]])
        assert.deepStrictEqual(yield* run(first + 2 * week), [[2, "paid"]])
        const done = yield* invoiceOf(invoice)
        assert.deepStrictEqual(
          [done.invoice_status, done.paid_cents, done.payments.length, done.held_by],
          ["paid", 3_000, 3, null]
        )
        assert.strictEqual(yield* f.gateway.balanceOf(t.contractorAccount), units(3_000))
        assert.strictEqual((yield* scheduleOf(f, t, schedule.nanoid)).state, "completed")
      }).pipe(Effect.scoped, Effect.orDie)
  )
})
