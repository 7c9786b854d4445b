import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { pay, paymentsBody } from "../../test/PaymentKit.ts"
import { cancelIntent } from "./CancelIntent.ts"
import { PaymentLedger } from "./PaymentLedger.ts"
import { paymentStateFilter } from "./PaymentMachine.ts"

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("cancelIntent", (it) => {
  it.effect("its signer cancels a registered intent, once; an employee may not; a paid payment is not one", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, key, employee } = yield* seedChainTeam
      yield* pay(signingAdmin, key, paymentsBody(team, [employee.nanoid], 300, 4_000_000_000))
      const [intent] = yield* PaymentLedger.use((l) => l.list({ payer: team, states: ["intent"] }))
      if (intent === undefined) return assert.fail("no intent was registered")
      assert.strictEqual((yield* Effect.flip(cancelIntent(employee, intent.nanoid)))._tag, "InsufficientPermissions")
      assert.deepStrictEqual(yield* cancelIntent(signingAdmin, intent.nanoid), {
        payment_nanoid: intent.nanoid,
        state: "canceled"
      })
      assert.strictEqual((yield* Effect.flip(cancelIntent(signingAdmin, intent.nanoid)))._tag, "IntentNotCancelable")
      yield* pay(signingAdmin, key, paymentsBody(team, [employee.nanoid], 400))
      const paid = (yield* PaymentLedger.use((l) => l.list({ payer: team, states: paymentStateFilter.complete })))[0]
      if (paid === undefined) return assert.fail("nothing was paid")
      assert.strictEqual((yield* Effect.flip(cancelIntent(signingAdmin, paid.nanoid)))._tag, "IntentNotCancelable")
    }).pipe(Effect.provide(onChainUseCases))
  )
})
