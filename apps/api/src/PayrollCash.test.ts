/**
 * Pay schedules under pressure (issue 37), each test on an anvil of its own: a schedule larger than the balance is
 * announced once as a cash requirement with its shortfall, again when it comes due, and paid once a deposit covers it;
 * two servers' runners on one store pay an instalment once; a runner that died after the chain paid, before it
 * recorded, is reconciled from the chain's logs by the next, once; an intent beyond the balance when due is announced
 * once as due; a schedule whose payee went without it being canceled is canceled by the runner, paying no one.
 */
import { assert, describe, it } from "@effect/vitest"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { MembershipRepository } from "@svc/domain/membership"
import { IntentRunner } from "@svc/domain/payment"
import { InstalmentRunner, PayScheduleRepository } from "@svc/domain/schedule"
import { Clock, Effect } from "effect"
import type { Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import {
  completePayments,
  createSchedule,
  eventCount,
  fixture,
  payrollTeam,
  scheduleOf,
  shifted,
  units
} from "../test/Payroll.ts"
import { call, startTestServerWith } from "../test/TestServer.ts"

/** The outbox's events of `type`, their data, as stored. */
const eventsOf = (f: Effect.Success<typeof fixture>, type: string) =>
  Effect.scoped(
    Effect.map(
      Effect.promise(async () => {
        const { DatabaseSync } = await import("node:sqlite")
        if (f.server.storage._tag !== "sqlite") return []
        const db = new DatabaseSync(f.server.storage.filename, { readOnly: true })
        try {
          return db
            .prepare("SELECT event FROM event_outbox WHERE json_extract(event, '$.event_type') = ?")
            .all(type)
            .map((row) => JSON.parse(String(row.event)).data)
        } finally {
          db.close()
        }
      }),
      (rows) => rows as ReadonlyArray<Record<string, unknown>>
    )
  )

/** One pass of the runner with the server's clock `ahead` ms on. */
const runAt = (f: Effect.Success<typeof fixture>, ahead: number) =>
  Effect.flatMap(shifted(ahead), (clock) =>
    InstalmentRunner.runDueInstalments().pipe(
      Effect.provide(f.server.context),
      Effect.provideService(Clock.Clock, clock)
    )
  )

describe("pay schedules and the balance", { timeout: 120_000 }, () => {
  it.live(
    "a schedule beyond the balance: one cash requirement with its shortfall, one more when due, paid after a deposit",
    () =>
      Effect.gen(function* () {
        const f = yield* fixture
        const t = yield* payrollTeam(f, 50_00)
        const first = Math.floor(Date.now() / 1000) + 3
        const schedule = yield* createSchedule(f, t, { first, count: 1, cents: [4000, 4000] })
        const forecast = yield* call(f.server, "GET", `/v2/cash_requirements?team_nanoid=${t.team}`, {
          token: t.token
        })
        assert.strictEqual(forecast.status, 200, JSON.stringify(forecast.body))
        assert.deepStrictEqual(
          [forecast.body.data.balance_cents, forecast.body.data.obligations_cents, forecast.body.data.shortfall_cents],
          [50_00, 80_00, 30_00]
        )
        assert.strictEqual(forecast.body.data.first_unmet_at, new Date(first * 1000).toISOString())

        const watch = InstalmentRunner.watchCashRequirements().pipe(Effect.provide(f.server.context))
        assert.strictEqual(yield* watch, 1)
        assert.strictEqual(yield* watch, 1)
        const created = yield* eventsOf(f, "payment.cash_requirement.created")
        assert.deepStrictEqual(
          created.map((data) => [
            data.shortfall_cents,
            data.first_unmet_at,
            (data.obligations as Array<unknown>).length
          ]),
          [[30_00, new Date(first * 1000).toISOString(), 1]]
        )

        // Due, and short: announced once, and left unpaid while it is valid.
        const dueIn = first * 1000 + 1_000 - Date.now()
        yield* f.setTime(first + 1)
        assert.deepStrictEqual(
          (yield* runAt(f, dueIn)).map((r) => r.run),
          ["short"]
        )
        assert.deepStrictEqual(
          (yield* runAt(f, dueIn + 6_000)).map((r) => r.run),
          ["short"]
        )
        assert.strictEqual(yield* eventCount(f.server, "payment.cash_requirement.due"), 1)
        assert.deepStrictEqual(yield* completePayments(f, t), [])

        // A deposit before the end of validity: paid at the next try, and the shortfall is gone.
        yield* f.embedded.mint(t.account, units(30_00))
        assert.deepStrictEqual(
          (yield* runAt(f, dueIn + 12_000)).map((r) => r.run),
          ["paid"]
        )
        assert.strictEqual((yield* completePayments(f, t)).length, 2)
        assert.strictEqual((yield* scheduleOf(f, t, schedule.nanoid)).state, "completed")
        const after = yield* call(f.server, "GET", `/v2/cash_requirements?team_nanoid=${t.team}`, { token: t.token })
        assert.deepStrictEqual([after.body.data.shortfall_cents, after.body.data.first_unmet_at], [0, null])
        assert.strictEqual(yield* watch, 0)
      }).pipe(Effect.scoped, Effect.orDie)
  )

  it.live("two servers' runners on one store pay an instalment once", () =>
    Effect.gen(function* () {
      const f = yield* fixture
      const t = yield* payrollTeam(f, 1_000_00)
      const first = Math.floor(Date.now() / 1000) + 3
      yield* createSchedule(f, t, { first, count: 2, cents: [1500, 500] })
      const second = yield* startTestServerWith({ storage: f.server.storage, chain: f.chain })
      const ahead = first * 1000 + 1_000 - Date.now()
      yield* f.setTime(first + 1)
      const [a, b] = yield* Effect.all(
        [
          runAt(f, ahead),
          Effect.flatMap(shifted(ahead), (clock) =>
            InstalmentRunner.runDueInstalments().pipe(
              Effect.provide(second.context),
              Effect.provideService(Clock.Clock, clock)
            )
          )
        ],
        { concurrency: 2 }
      )
      assert.deepStrictEqual(
        [...a, ...b].map((r) => [r.n, r.run]),
        [[0, "paid"]]
      )
      assert.strictEqual((yield* completePayments(f, t)).length, 2)
      assert.deepStrictEqual(
        [yield* f.gateway.balanceOf(t.employeeAccount), yield* f.gateway.balanceOf(t.contractorAccount)],
        [units(1500), units(500)]
      )
      assert.strictEqual(yield* eventCount(f.server, "payment.subscription.paid"), 1)
    }).pipe(Effect.scoped, Effect.orDie)
  )

  it.live("a runner that died after the chain paid, before it recorded: the next records it from the chain, once", () =>
    Effect.gen(function* () {
      const f = yield* fixture
      const t = yield* payrollTeam(f, 1_000_00)
      const first = Math.floor(Date.now() / 1000) + 3
      const schedule = yield* createSchedule(f, t, { first, count: 2, cents: [1500, 500] })
      const ahead = first * 1000 + 1_000 - Date.now()
      yield* f.setTime(first + 1)
      // The dead runner: it took the lease and the chain paid its transaction; then nothing more.
      const dead = yield* Effect.flatMap(shifted(ahead), (clock) =>
        PayScheduleRepository.use((repository) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            repository.leaseDue({ now: Math.floor(now / 1000), nowMillis: now, leaseUntil: now + 60_000 })
          )
        ).pipe(Effect.provide(f.server.context), Effect.provideService(Clock.Clock, clock))
      )
      assert.strictEqual(dead?.schedule.nanoid, schedule.nanoid)
      const sent = yield* f.gateway.executeInstalment(t.account, schedule.onchain_id as Hex, 0)
      // While its lease holds, nobody takes it; once it lapsed, the next runner finds it paid on chain.
      assert.deepStrictEqual(yield* runAt(f, ahead), [])
      const next = yield* runAt(f, ahead + 61_000)
      assert.deepStrictEqual(
        next.map((r) => [r.n, r.run]),
        [[0, "paid"]]
      )
      const paid = yield* completePayments(f, t)
      assert.deepStrictEqual(
        paid.map((p) => p.payment.process_transaction),
        [sent.transactionHash, sent.transactionHash]
      )
      assert.deepStrictEqual(
        [yield* f.gateway.balanceOf(t.employeeAccount), yield* f.gateway.balanceOf(t.contractorAccount)],
        [units(1500), units(500)]
      )
      assert.strictEqual(yield* eventCount(f.server, "payment.subscription.paid"), 1)
      assert.strictEqual((yield* scheduleOf(f, t, schedule.nanoid)).paid_count, 1)
    }).pipe(Effect.scoped, Effect.orDie)
  )

  it.live(
    "an intent beyond the balance when due: one payment.cash_requirement.due, and it stays to be tried again",
    () =>
      Effect.gen(function* () {
        const f = yield* fixture
        const t = yield* payrollTeam(f, 10_00)
        const due = Math.floor(Date.now() / 1000) + 3
        const body = {
          from: t.team,
          to: [{ to: t.employee.user, amount_cents: 40_00, currency_symbol: "USD", invoice_description: "Later" }],
          pay_now: false,
          pay_at_time: due
        }
        const issued = yield* call(f.server, "POST", "/v2/payments", { token: t.token, body })
        assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
        const signature = yield* Effect.promise(() =>
          privateKeyToAccount(t.financeKey).signTypedData(signableOf(issued.body.data as TypedDataBundle))
        )
        const { pay_at_time: _, ...signed } = body
        const put = { ...signed, signer: t.finance.address, typed_data: issued.body.data.typed_data, signature }
        const executed = yield* call(f.server, "PUT", "/v2/payments", { token: t.token, body: put })
        assert.strictEqual(executed.status, 200, JSON.stringify(executed.body))

        const ahead = due * 1000 + 1_000 - Date.now()
        yield* f.setTime(due + 1)
        const pass = Effect.flatMap(shifted(ahead), (clock) =>
          IntentRunner.runDueIntents().pipe(Effect.provide(f.server.context), Effect.provideService(Clock.Clock, clock))
        )
        assert.deepStrictEqual(
          (yield* pass).map((r) => r.run),
          ["retry_later"]
        )
        const again = yield* Effect.flatMap(shifted(ahead + 61_000), (clock) =>
          IntentRunner.runDueIntents().pipe(Effect.provide(f.server.context), Effect.provideService(Clock.Clock, clock))
        )
        assert.deepStrictEqual(
          again.map((r) => r.run),
          ["retry_later"]
        )
        const announced = yield* eventsOf(f, "payment.cash_requirement.due")
        assert.deepStrictEqual(
          announced.map((data) => [data.shortfall_cents, (data.obligations as Array<{ kind: string }>)[0]?.kind]),
          [[30_00, "intent"]]
        )
        assert.deepStrictEqual(yield* completePayments(f, t), [])
      }).pipe(Effect.scoped, Effect.orDie)
  )

  it.live("a payee gone before their schedule was canceled: the runner cancels it at its due time, paying no one", () =>
    Effect.gen(function* () {
      const f = yield* fixture
      const t = yield* payrollTeam(f, 1_000_00)
      const first = Math.floor(Date.now() / 1000) + 3
      const schedule = yield* createSchedule(f, t, { first, count: 2, cents: [1500, 500] })
      // A removal whose process died after the membership went and before the schedule was canceled.
      yield* MembershipRepository.use((m) => m.remove(t.team, t.contractor.user)).pipe(Effect.provide(f.server.context))
      yield* f.setTime(first + 1)
      assert.deepStrictEqual(
        (yield* runAt(f, first * 1000 + 1_000 - Date.now())).map((r) => r.run),
        ["canceled"]
      )
      assert.strictEqual((yield* scheduleOf(f, t, schedule.nanoid)).state, "canceled")
      assert.strictEqual((yield* f.gateway.schedule(t.account, schedule.onchain_id as Hex))?.active, false)
      assert.deepStrictEqual(yield* completePayments(f, t), [])
    }).pipe(Effect.scoped, Effect.orDie)
  )
})
