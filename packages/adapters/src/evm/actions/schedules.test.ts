/**
 * Pay schedules on the run's anvil (contracts version 5), through the gateway's actions: a signed schedule registers
 * once; an instalment pays every payee once, only in its window; each refusal comes back by its error (early, late,
 * twice, canceled, beyond the balance, the wrong instalment, the signer revoked) and moves no token. Times are set
 * around the chain's own clock (instalments due in the past), so no test travels in time on the shared anvil.
 */
import { assert, describe, layer } from "@effect/vitest"
import { svcAccountAbi } from "@svc/contracts"
import type { ScheduleEntry } from "@svc/domain/eip712"
import { instalmentWindow } from "@svc/domain/schedule"
import { Effect } from "effect"
import type { Address, Hex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import {
  balances,
  bytes32,
  chainTime,
  freshTeam,
  GatewayFixture,
  newWallet,
  signedRoles,
  signedSchedule
} from "../../../test/GatewayTestKit.ts"
import { revokeAuthority } from "./accounts.ts"
import { executeRoles } from "./executeRequests.ts"
import { read } from "./Gateway.ts"
import { cancelSchedules, executeInstalment, executeSchedule, instalmentPaidOf, scheduleOf } from "./schedules.ts"

const week = 7 * 86_400

/** A weekly schedule of `count` instalments whose instalment 1 is due now: 0 is past its 10-minute window. */
const weeklyDueNow = (token: Address, payees: ReadonlyArray<readonly [Address, bigint]>, count = 3) =>
  Effect.map(
    chainTime,
    (now): ScheduleEntry => ({
      id: bytes32(),
      token,
      firstPayAt: String(now - week - 60),
      interval: "weekly",
      count: String(count),
      validMinutes: "10",
      payees: payees.map(([recipient, amount]) => ({ recipient, amount: String(amount) })) as never
    })
  )

layer(GatewayFixture.layer(), { timeout: 120_000, excludeTestServices: true })("pay schedules on anvil", (it) => {
  it.effect("an instalment pays every payee once, in its window; each other refusal names itself", () =>
    Effect.gen(function* () {
      const { gateway, suite } = yield* GatewayFixture
      const { account, ownerKey } = yield* freshTeam()
      const [ana, ben] = [newWallet(), newWallet()]
      const schedule = yield* weeklyDueNow(suite.token, [
        [ana, 1_500_000n],
        [ben, 2_000_000n]
      ])
      const id = schedule.id as Hex
      const registered = yield* executeSchedule(gateway, yield* signedSchedule(ownerKey, account, schedule))
      assert.strictEqual(registered.id, id)

      const late = yield* Effect.flip(executeInstalment(gateway, account, id, 0))
      assert.strictEqual(late._tag, "InstalmentValidityElapsed")
      const paid = yield* executeInstalment(gateway, account, id, 1)
      assert.deepStrictEqual(
        paid.payments.map((p) => [p.recipient, p.amount]),
        [
          [ana, 1_500_000n],
          [ben, 2_000_000n]
        ]
      )
      const twice = yield* Effect.flip(executeInstalment(gateway, account, id, 1))
      assert.strictEqual(twice._tag, "InstalmentAlreadyPaid")
      const early = yield* Effect.flip(executeInstalment(gateway, account, id, 2))
      assert.strictEqual(early._tag, "InstalmentNotDue")
      const wrong = yield* Effect.flip(executeInstalment(gateway, account, id, 3))
      assert.strictEqual(wrong._tag, "InstalmentNotFound")
      const unknown = yield* Effect.flip(executeInstalment(gateway, account, bytes32(), 0))
      assert.strictEqual(unknown._tag, "ScheduleNotFound")
      assert.deepStrictEqual(yield* balances(ana, ben), [1_500_000n, 2_000_000n])
      assert.deepStrictEqual((yield* scheduleOf(gateway, account, id))?.paid, [1])
      // Read back from the logs, as a runner that died before recording it finds it.
      const found = yield* instalmentPaidOf(gateway, account, id, 1, registered.blockNumber)
      assert.deepStrictEqual([found?.transactionHash, found?.payments], [paid.transactionHash, paid.payments])
      assert.isUndefined(yield* instalmentPaidOf(gateway, account, id, 2, registered.blockNumber))

      // The same schedule id signed again (a new salt) is refused: a schedule registers once.
      const again = yield* Effect.flip(executeSchedule(gateway, yield* signedSchedule(ownerKey, account, schedule)))
      assert.strictEqual(again._tag, "InvalidRequest")
    })
  )

  it.effect("an instalment beyond the balance pays no one", () =>
    Effect.gen(function* () {
      const { gateway, suite } = yield* GatewayFixture
      const { account, ownerKey } = yield* freshTeam(3_000_000n)
      const [cy, dee] = [newWallet(), newWallet()]
      const schedule = yield* weeklyDueNow(suite.token, [
        [cy, 2_000_000n],
        [dee, 2_000_000n]
      ])
      yield* executeSchedule(gateway, yield* signedSchedule(ownerKey, account, schedule))
      const short = yield* Effect.flip(executeInstalment(gateway, account, schedule.id as Hex, 1))
      assert.strictEqual(short._tag, "InsufficientBalance")
      assert.deepStrictEqual(yield* balances(account, cy, dee), [3_000_000n, 0n, 0n])
    })
  )

  it.effect("a canceled schedule pays nothing more, and cancelling again changes nothing", () =>
    Effect.gen(function* () {
      const { gateway, suite } = yield* GatewayFixture
      const { account, ownerKey } = yield* freshTeam()
      const eve = newWallet()
      const schedule = yield* weeklyDueNow(suite.token, [[eve, 1_000_000n]])
      const id = schedule.id as Hex
      yield* executeSchedule(gateway, yield* signedSchedule(ownerKey, account, schedule))
      assert.deepStrictEqual((yield* cancelSchedules(gateway, account, [id])).canceled, [id])
      const canceled = yield* Effect.flip(executeInstalment(gateway, account, id, 1))
      assert.strictEqual(canceled._tag, "ScheduleNotActive")
      assert.deepStrictEqual((yield* cancelSchedules(gateway, account, [id])).canceled, [])
      assert.strictEqual((yield* scheduleOf(gateway, account, id))?.active, false)
      assert.deepStrictEqual(yield* balances(eve), [0n])
    })
  )

  it.effect("revoking the signer ends their schedules for good, even once granted again", () =>
    Effect.gen(function* () {
      const { gateway, suite } = yield* GatewayFixture
      const { account, ownerKey } = yield* freshTeam()
      const financeKey = generatePrivateKey()
      const finance = privateKeyToAccount(financeKey).address
      const grant = [{ role: "team_finance_admin", account: finance }] as const
      yield* executeRoles(gateway, yield* signedRoles(ownerKey, account, grant))
      const fay = newWallet()
      const schedule = yield* weeklyDueNow(suite.token, [[fay, 1_000_000n]])
      const id = schedule.id as Hex
      yield* executeSchedule(gateway, yield* signedSchedule(financeKey, account, schedule))
      assert.isTrue((yield* scheduleOf(gateway, account, id))?.active)

      yield* revokeAuthority(gateway, account, [finance])
      yield* executeRoles(gateway, yield* signedRoles(ownerKey, account, grant))
      const ended = yield* Effect.flip(executeInstalment(gateway, account, id, 1))
      assert.strictEqual(ended._tag, "ScheduleNotActive")
      assert.deepStrictEqual(yield* balances(fay), [0n])
    })
  )

  describe("due times", () => {
    it.effect("monthly keeps the day of the month, clamped, as the domain computes it", () =>
      Effect.gen(function* () {
        const { gateway, ownerKey, suite, team } = yield* GatewayFixture
        const firstPayAt = Date.parse("2031-01-31T09:30:00Z") / 1000
        const schedule: ScheduleEntry = {
          id: bytes32(),
          token: suite.token,
          firstPayAt: String(firstPayAt),
          interval: "monthly",
          count: "14",
          validMinutes: "1440",
          payees: [{ recipient: newWallet(), amount: "1" }]
        }
        yield* executeSchedule(gateway, yield* signedSchedule(ownerKey, team, schedule))
        const onChain = yield* Effect.forEach(
          Array.from({ length: 14 }, (_, n) => n),
          (n) =>
            read<readonly [bigint, bigint]>(gateway, {
              address: team,
              abi: svcAccountAbi,
              functionName: "instalmentWindow",
              args: [schedule.id, BigInt(n)]
            }).pipe(Effect.map(([dueAt, validUntil]) => ({ dueAt: Number(dueAt), validUntil: Number(validUntil) })))
        )
        const domain = onChain.map((_, n) =>
          instalmentWindow({ firstPayAt, interval: "monthly", validMinutes: 1440 }, n)
        )
        assert.deepStrictEqual(onChain, domain)
        assert.strictEqual(new Date(onChain[13]!.dueAt * 1000).toISOString(), "2032-02-29T09:30:00.000Z")
      })
    )
  })
})
