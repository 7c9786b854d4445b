import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { issueInstantPayment } from "./IssueInstantPayment.ts"
import { InstantPaymentRequest } from "./PaymentRequests.ts"

const body = (team: string) =>
  Schema.decodeUnknownSync(InstantPaymentRequest)({
    from: team,
    amount_cents: 500,
    payment_data: { invoice_description: "Design" },
    external_recipient_email: "Contractor@Example.COM",
    currency_symbol: "USD"
  })

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("issueInstantPayment", (it) => {
  it.effect("issues one payment into the escrow for the e-mail, kept until executed; an employee may not", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, employee } = yield* seedChainTeam
      const bundle = yield* issueInstantPayment(signingAdmin, body(team))
      assert.strictEqual(bundle.typed_data.data.amount, "5000000")
      assert.strictEqual(bundle.typed_data.data.payType, "3")
      assert.strictEqual((yield* IssuedRequestStore.use((s) => s.find(bundle.typed_data.salt))).kind, "instant")
      assert.strictEqual(
        (yield* Effect.flip(issueInstantPayment(employee, body(team))))._tag,
        "InsufficientPermissions"
      )
    }).pipe(Effect.provide(onChainUseCases))
  )
})
