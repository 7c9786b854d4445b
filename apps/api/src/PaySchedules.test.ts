/**
 * Pay schedules end to end over real HTTP (issue 37), each test on an anvil of its own (its time travels) and a server
 * on SQLite: a schedule signed once and paid every period, announced once each; cancelled for good on chain; ended with
 * its signer; a cash requirement announced once, then paid after a deposit; two runners, and a runner that died after
 * paying, pay once. Later instalments move anvil's time and the server's clock together (`shifted`).
 */
import { assert, describe, it } from "@effect/vitest"
import { startAnvil } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { ChainGateway, rolesRequestOf } from "@svc/domain/chain"
import { rolesTypedData, signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { InstalmentRunner } from "@svc/domain/schedule"
import { TeamRepository } from "@svc/domain/team"
import { Clock, Context, Duration, Effect, Exit, Layer, Schedule, Scope } from "effect"
import { createTestClient, type Hex, http, keccak256, publicActions, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import {
  addMember,
  call,
  seedTeam,
  signIn,
  sqliteOf,
  startTestServerWith,
  type TestServer
} from "../test/TestServer.ts"
import { startReceiver } from "../test/WebhookReceiver.ts"

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any
const chainId = 42161
const week = 7 * 86_400
const units = (cents: number) => BigInt(cents) * 10n ** 4n

/** A fresh anvil, the suite on it, and a server on that chain, for the test's scope. */
const fixture = Effect.gen(function* () {
  const anvil = yield* startAnvil()
  const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl: anvil.rpcUrl, chainId }))
  const chain = Layer.succeed(ChainGateway, Context.get(chainContext, ChainGateway))
  const server = yield* startTestServerWith({ chain })
  const node = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl), pollingInterval: 10 }).extend(
    publicActions
  )
  return {
    server,
    chain,
    node,
    embedded: Context.get(chainContext, EmbeddedChain),
    gateway: Context.get(chainContext, ChainGateway)
  }
})
type Fixture = Effect.Success<typeof fixture>

/** A team whose account's owner is a team admin, a finance admin granted on chain (the signer), and two payees. */
const payrollTeam = (f: Fixture, cents: number) =>
  Effect.gen(function* () {
    const seeded = yield* seedTeam(f.server, ["team_admin", "team_employee", "team_contractor"])
    const [owner, employee, contractor] = seeded.members as [Json, Json, Json]
    const financeKey = generatePrivateKey()
    const finance = privateKeyToAccount(financeKey)
    const financeUser = yield* addMember(seeded.teamId, finance.address, "team_finance_admin", "fin@t.example").pipe(
      Effect.provide(f.server.context)
    )
    const { account } = yield* f.gateway.createAccount(owner.account.address, keccak256(toHex(seeded.teamId)))
    const suite = yield* f.gateway.addresses
    const now = Math.floor(Date.now() / 1000)
    const grant = rolesTypedData(
      { chainId, verifyingContract: suite.forwarder },
      {
        from: owner.account.address,
        to: account,
        salt: String(BigInt(keccak256(toHex(financeUser)))),
        expires: String(now + 600)
      },
      [{ role: "team_finance_admin", account: finance.address }]
    )
    const signature = yield* Effect.promise((): Promise<Hex> => owner.account.signTypedData(signableOf(grant)))
    yield* f.gateway.executeRoles({ request: rolesRequestOf(grant.typed_data), signature })
    if (cents > 0) yield* f.embedded.mint(account, units(cents))
    yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
      Effect.provide(f.server.context)
    )
    const memberAccount = (member: Json) =>
      f.gateway.accountAddress(member.account.address, keccak256(toHex(member.user)))
    return {
      team: seeded.teamId,
      account,
      owner,
      ownerToken: yield* signIn(f.server, owner.account),
      financeKey,
      finance,
      financeUser,
      token: yield* signIn(f.server, finance),
      employee,
      contractor,
      employeeAccount: yield* memberAccount(employee),
      contractorAccount: yield* memberAccount(contractor)
    }
  }).pipe(Effect.orDie)
type Team = Effect.Success<ReturnType<typeof payrollTeam>>

/** POST then PUT /v2/pay_schedules, signed by the finance admin; answers the schedule as registered. */
const createSchedule = (
  f: Fixture,
  t: Team,
  body: { readonly first: number; readonly count: number; readonly cents: readonly [number, number] }
) =>
  Effect.gen(function* () {
    const issued = yield* call(f.server, "POST", "/v2/pay_schedules", {
      token: t.token,
      body: {
        team_nanoid: t.team,
        to: [
          { to: t.employee.user, amount_cents: body.cents[0], invoice_description: "Salary" },
          { to: t.contractor.user, amount_cents: body.cents[1] }
        ],
        interval: "weekly",
        first_pay_at: new Date(body.first * 1000).toISOString(),
        count: body.count
      }
    })
    assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
    const { pay_schedule_nanoid, ...bundle } = issued.body.data
    const signature = yield* Effect.promise(() =>
      privateKeyToAccount(t.financeKey).signTypedData(signableOf(bundle as TypedDataBundle))
    )
    const put = yield* call(f.server, "PUT", "/v2/pay_schedules", {
      token: t.token,
      body: { team_nanoid: t.team, signer: t.finance.address, typed_data: bundle.typed_data, signature }
    })
    assert.strictEqual(put.status, 200, JSON.stringify(put.body))
    assert.strictEqual(put.body.data.pay_schedule.nanoid, pay_schedule_nanoid)
    return put.body.data.pay_schedule as Json
  })

/** The live clock moved `offsetMillis` ahead: the server's time, as the chain's after travelling. */
const shifted = (offsetMillis: number) =>
  Effect.map(
    Clock.clockWith(Effect.succeed),
    (clock): Clock.Clock => ({
      currentTimeMillisUnsafe: () => clock.currentTimeMillisUnsafe() + offsetMillis,
      currentTimeMillis: Effect.map(clock.currentTimeMillis, (now) => now + offsetMillis),
      currentTimeNanosUnsafe: () => clock.currentTimeNanosUnsafe() + BigInt(offsetMillis) * 1_000_000n,
      currentTimeNanos: Effect.map(clock.currentTimeNanos, (now) => now + BigInt(offsetMillis) * 1_000_000n),
      monotonicTimeNanosUnsafe: () => clock.monotonicTimeNanosUnsafe(),
      monotonicTimeNanos: clock.monotonicTimeNanos,
      sleep: (duration) => clock.sleep(duration)
    })
  )

/** Anvil's next block at `time` (unix seconds), mined; then one pass of the runner with the server's clock there. */
const travelAndRun = (f: Fixture, time: number) =>
  Effect.gen(function* () {
    yield* Effect.promise(() => f.node.setNextBlockTimestamp({ timestamp: BigInt(time) }))
    yield* Effect.promise(() => f.node.mine({ blocks: 1 }))
    const clock = yield* shifted(time * 1000 + 1_000 - Date.now())
    return yield* InstalmentRunner.runDueInstalments().pipe(
      Effect.provide(f.server.context),
      Effect.provideService(Clock.Clock, clock)
    )
  })

/** Asks `check` every 100 ms until it answers true, for at most `seconds`. */
const until = (check: Effect.Effect<boolean>, seconds = 30) =>
  check.pipe(
    Effect.repeat({ until: (done) => done, schedule: Schedule.spaced(Duration.millis(100)) }),
    Effect.timeout(Duration.seconds(seconds)),
    Effect.orDie
  )

const scheduleOf = (f: Fixture, t: Team, nanoid: string) =>
  Effect.map(call(f.server, "GET", `/v2/pay_schedules/${nanoid}`, { token: t.token }), (r) => r.body.data as Json)

const completePayments = (f: Fixture, t: Team) =>
  Effect.map(
    call(f.server, "GET", `/v2/payments?team_nanoid=${t.team}&state=complete`, { token: t.token }),
    (r) => r.body.data.items as ReadonlyArray<Json>
  )

/** How many events of `type` the server's outbox holds (one per id: an event announced twice is one row). */
const eventCount = (server: TestServer, type: string) =>
  Effect.scoped(
    Effect.map(sqliteOf(server), (db) =>
      Number(
        db.prepare("SELECT count(*) AS n FROM event_outbox WHERE json_extract(event, '$.event_type') = ?").get(type)
          ?.n ?? -1
      )
    )
  )

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
        yield* until(Effect.map(completePayments(f, t), (items) => items.length === 2))
        const paid = yield* completePayments(f, t)
        assert.deepStrictEqual(
          paid.map((p) => [p.payment.pay_schedule_nanoid, p.payment.instalment, p.payment.amount_cents]).sort(),
          [
            [schedule.nanoid, 0, 1000],
            [schedule.nanoid, 0, 2500]
          ]
        )
        const receipt = yield* Effect.promise(() =>
          f.node.getTransactionReceipt({ hash: paid[0].payment.process_transaction as Hex })
        )
        const block = yield* Effect.promise(() => f.node.getBlock({ blockNumber: receipt.blockNumber }))
        const late = Number(block.timestamp) - first
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
      const deleted = yield* call(f.server, "DELETE", `/v2/pay_schedules/${canceled.nanoid}`, { token: t.token })
      assert.strictEqual(deleted.status, 200, JSON.stringify(deleted.body))
      assert.strictEqual(deleted.body.data.state, "canceled")
      const again = yield* call(f.server, "DELETE", `/v2/pay_schedules/${canceled.nanoid}`, { token: t.token })
      assert.deepStrictEqual([again.status, again.body.error_code], [409, "INVALID_STATE_TRANSITION"])
      yield* Effect.promise(() => f.node.setNextBlockTimestamp({ timestamp: BigInt(first + 1) }))
      yield* Effect.promise(() => f.node.mine({ blocks: 1 }))
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
})
