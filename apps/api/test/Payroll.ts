/**
 * What the pay schedule tests share (issue 37): a fresh anvil of the test's own (its time travels) with the suite and a
 * server on SQLite; a team whose finance admin signs; a schedule created and signed over HTTP; the runner run with the
 * server's clock where anvil's time went.
 */

import { assert } from "@effect/vitest"
import { startAnvil } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { ChainGateway } from "@svc/domain/chain"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { InstalmentRunner } from "@svc/domain/schedule"
import { TeamRepository } from "@svc/domain/team"
import { Clock, Context, Effect, Layer } from "effect"
import { createTestClient, type Hex, http, keccak256, publicActions, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { grantRoleOnChain } from "./ChainRoles.ts"
import { addMember, call, seedTeam, signIn, sqliteOf, startTestServerWith, type TestServer } from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
export type Json = any
export const chainId = 42161
export const week = 7 * 86_400
export const units = (cents: number) => BigInt(cents) * 10n ** 4n

/** A fresh anvil, the suite on it, and a server on that chain, for the test's scope. */
export const fixture = Effect.gen(function* () {
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
    /** Anvil's next block at `time` (unix seconds), mined. */
    setTime: (time: number): Effect.Effect<void> =>
      Effect.promise(async () => {
        await node.setNextBlockTimestamp({ timestamp: BigInt(time) })
        await node.mine({ blocks: 1 })
      }),
    /** The time of the block that included `transaction` (unix seconds). */
    blockTimeOf: (transaction: Hex): Effect.Effect<number> =>
      Effect.promise(async () => {
        const receipt = await node.getTransactionReceipt({ hash: transaction })
        return Number((await node.getBlock({ blockNumber: receipt.blockNumber })).timestamp)
      }),
    embedded: Context.get(chainContext, EmbeddedChain),
    gateway: Context.get(chainContext, ChainGateway)
  }
})
export type Fixture = Effect.Success<typeof fixture>

/** A team whose account's owner is a team admin, a finance admin granted on chain (the signer), and two payees. */
export const payrollTeam = (f: Fixture, cents: number) =>
  Effect.gen(function* () {
    const seeded = yield* seedTeam(f.server, ["team_admin", "team_employee", "team_contractor"])
    const [owner, employee, contractor] = seeded.members as [Json, Json, Json]
    const financeKey = generatePrivateKey()
    const finance = privateKeyToAccount(financeKey)
    const financeUser = yield* addMember(seeded.teamId, finance.address, "team_finance_admin", "fin@t.example").pipe(
      Effect.provide(f.server.context)
    )
    const { account } = yield* f.gateway.createAccount(owner.account.address, keccak256(toHex(seeded.teamId)))
    yield* grantRoleOnChain(account, owner.account, {
      role: "team_finance_admin",
      wallet: finance.address,
      salt: financeUser
    }).pipe(Effect.provide(f.chain))
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
export type Team = Effect.Success<ReturnType<typeof payrollTeam>>

/** A weekly schedule's POST /v2/pay_schedules body: `to` as given, or the employee and the contractor paid `cents`. */
export const scheduleBody = (
  t: Team,
  body: {
    readonly first: number
    readonly count: number
    readonly cents?: readonly [number, number]
    readonly to?: ReadonlyArray<Json>
  }
) => ({
  team_nanoid: t.team,
  to: body.to ?? [
    { to: t.employee.user, amount_cents: body.cents?.[0], invoice_description: "Salary" },
    { to: t.contractor.user, amount_cents: body.cents?.[1] }
  ],
  interval: "weekly",
  first_pay_at: new Date(body.first * 1000).toISOString(),
  count: body.count
})

/** What POST /v2/pay_schedules issued (`data`), signed by the finance admin: the PUT body, and the schedule's nanoid. */
export const signedSchedule = (t: Team, issued: Json) =>
  Effect.gen(function* () {
    const { pay_schedule_nanoid, ...bundle } = issued
    const signature = yield* Effect.promise(() =>
      privateKeyToAccount(t.financeKey).signTypedData(signableOf(bundle as TypedDataBundle))
    )
    return {
      nanoid: pay_schedule_nanoid as string,
      put: { team_nanoid: t.team, signer: t.finance.address, typed_data: bundle.typed_data, signature }
    }
  })

/** POST then PUT /v2/pay_schedules, signed by the finance admin; answers the schedule as registered. */
export const createSchedule = (f: Fixture, t: Team, body: Parameters<typeof scheduleBody>[1]) =>
  Effect.gen(function* () {
    const issued = yield* call(f.server, "POST", "/v2/pay_schedules", { token: t.token, body: scheduleBody(t, body) })
    assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
    const { nanoid: pay_schedule_nanoid, put: signed } = yield* signedSchedule(t, issued.body.data)
    const put = yield* call(f.server, "PUT", "/v2/pay_schedules", { token: t.token, body: signed })
    assert.strictEqual(put.status, 200, JSON.stringify(put.body))
    assert.strictEqual(put.body.data.pay_schedule.nanoid, pay_schedule_nanoid)
    return put.body.data.pay_schedule as Json
  })

/** The live clock moved `offsetMillis` ahead: the server's time, as the chain's after travelling. */
export const shifted = (offsetMillis: number) =>
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
export const travelAndRun = (f: Fixture, time: number) =>
  Effect.gen(function* () {
    yield* f.setTime(time)
    const clock = yield* shifted(time * 1000 + 1_000 - Date.now())
    return yield* InstalmentRunner.runDueInstalments().pipe(
      Effect.provide(f.server.context),
      Effect.provideService(Clock.Clock, clock)
    )
  })

export const scheduleOf = (f: Fixture, t: Team, nanoid: string) =>
  Effect.map(call(f.server, "GET", `/v2/pay_schedules/${nanoid}`, { token: t.token }), (r) => r.body.data as Json)

export const completePayments = (f: Fixture, t: Team) =>
  Effect.map(
    call(f.server, "GET", `/v2/payments?team_nanoid=${t.team}&state=complete`, { token: t.token }),
    (r) => r.body.data.items as ReadonlyArray<Json>
  )

/** How many events of `type` the server's outbox holds (one per id: an event announced twice is one row). */
export const eventCount = (server: TestServer, type: string) =>
  Effect.scoped(
    Effect.map(sqliteOf(server), (db) =>
      Number(
        db.prepare("SELECT count(*) AS n FROM event_outbox WHERE json_extract(event, '$.event_type') = ?").get(type)
          ?.n ?? -1
      )
    )
  )
