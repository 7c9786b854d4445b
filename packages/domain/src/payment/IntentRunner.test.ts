import { assert, layer } from "@effect/vitest"
import { eventually } from "@svc/adapters/test/Eventually"
import { Effect } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { pay, paymentsBody } from "../../test/PaymentKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
import * as IntentRunner from "./IntentRunner.ts"
import { PaymentLedger } from "./PaymentLedger.ts"
import { paymentStateFilter } from "./PaymentMachine.ts"

/** An intent of `cents` to the seeded team's employee, registered on chain, due in `seconds`; answers its time. */
const registerIntent = (cents: number, seconds: number) =>
  Effect.gen(function* () {
    const seeded = yield* seedChainTeam
    const payAt = Math.floor(Date.now() / 1000) + seconds
    yield* pay(seeded.signingAdmin, seeded.key, paymentsBody(seeded.team, [seeded.employee.nanoid], cents, payAt))
    return { ...seeded, payAt }
  })

/** Runs the due intents until one is due on chain too (real time: the file runs without test services): the runs. */
const runWhenDue = eventually(
  Effect.map(IntentRunner.runDueIntents(), (runs) => runs.some((r) => r.run !== "not_due") && runs),
  { what: "an intent due on chain", every: "250 millis" }
)

const balanceOf = (account: `0x${string}`) => ChainGateway.use((chain) => chain.balanceOf(account))

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("IntentRunner.runDueIntents", (it) => {
  it.effect("runs a registered intent once it is due, paying it once on chain, with payment.sent; not before", () =>
    Effect.gen(function* () {
      const { team, account } = yield* registerIntent(700, 3)
      const before = yield* balanceOf(account)
      const payments = () => PaymentLedger.use((l) => l.list({ payer: team, states: paymentStateFilter.all }))
      assert.deepStrictEqual(
        (yield* payments()).map((p) => p.state),
        ["intent"]
      )
      assert.deepStrictEqual(yield* IntentRunner.runDueIntents(), [])
      assert.strictEqual(yield* balanceOf(account), before)
      const runs = yield* runWhenDue
      assert.deepStrictEqual(
        runs.map((r) => r.run),
        ["complete"]
      )
      const [paid] = yield* payments()
      assert.strictEqual(paid?.state, "complete")
      assert.match(paid?.process_transaction ?? "", /^0x[0-9a-f]{64}$/)
      assert.strictEqual(yield* balanceOf(account), before - 7_000_000n)
      assert.include(
        (yield* outboxEvents).map((e) => e.event_type),
        "payment.sent"
      )
      // Done: another runner finds nothing to run, and nothing more leaves the account.
      assert.deepStrictEqual(yield* IntentRunner.runDueIntents(), [])
      assert.strictEqual(yield* balanceOf(account), before - 7_000_000n)
    }).pipe(Effect.provide(onChainUseCases))
  )

  it.effect("an intent whose signer is no longer a paying member is canceled when due, never paid", () =>
    Effect.gen(function* () {
      const { team, account, signingAdmin } = yield* registerIntent(500, 3)
      const before = yield* balanceOf(account)
      yield* MembershipRepository.use((m) => m.remove(team, signingAdmin.nanoid))
      const runs = yield* runWhenDue
      assert.deepStrictEqual(
        runs.map((r) => r.run),
        ["canceled"]
      )
      const [payment] = yield* PaymentLedger.use((l) => l.list({ payer: team, states: paymentStateFilter.all }))
      assert.strictEqual(payment?.state, "canceled")
      assert.strictEqual(yield* balanceOf(account), before)
    }).pipe(Effect.provide(onChainUseCases))
  )

  it.effect("an intent paying a member blocked since it was registered is canceled when due, never paid", () =>
    Effect.gen(function* () {
      const { team, account, employee, admin } = yield* registerIntent(400, 3)
      const before = yield* balanceOf(account)
      // Written as the block leaves it, without the block's own cancellation: the runner's check alone.
      yield* MembershipRepository.use((m) =>
        m.moveBlock(team, employee.nanoid, "active", {
          state: "blocked",
          since: "2026-01-01T00:00:00.000Z",
          reason: "",
          by: admin.nanoid
        })
      )
      const runs = yield* runWhenDue
      assert.deepStrictEqual(
        runs.map((r) => r.run),
        ["canceled"]
      )
      assert.strictEqual(yield* balanceOf(account), before)
    }).pipe(Effect.provide(onChainUseCases))
  )
})
