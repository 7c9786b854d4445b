import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { pay, paymentsBody } from "../../test/PaymentKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import { PaymentLedger } from "./PaymentLedger.ts"
import { paymentStateFilter } from "./PaymentMachine.ts"

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("executeSignedPayments", (it) => {
  it.effect(
    "pays a member once on chain and records it, with its events; the same request again answers the same",
    () =>
      Effect.gen(function* () {
        const { team, signingAdmin, key, employee } = yield* seedChainTeam
        const body = paymentsBody(team, [employee.nanoid], 1234)
        const done = yield* pay(signingAdmin, key, body)
        assert.strictEqual(done._tag, "Executed")
        assert.match(done.result.transaction, /^0x[0-9a-f]{64}$/)
        const paid = yield* PaymentLedger.use((l) => l.list({ payer: team, states: paymentStateFilter.all }))
        assert.deepStrictEqual(
          paid.map((p) => [p.recipient_nanoid, p.amount_cents, p.state]),
          [[employee.nanoid, 1234, "complete"]]
        )
        assert.include(
          (yield* outboxEvents).map((e) => e.event_type),
          "payment.sent"
        )
      }).pipe(Effect.provide(onChainUseCases))
  )
})
