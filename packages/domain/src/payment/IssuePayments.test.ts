import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { paymentsBody } from "../../test/PaymentKit.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { issuePayments } from "./IssuePayments.ts"

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("issuePayments", (it) => {
  it.effect("issues the batch's typed data from the team's account, kept until executed; an employee may not", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, employee, account } = yield* seedChainTeam
      const bundle = yield* issuePayments(signingAdmin, paymentsBody(team, [employee.nanoid], 2500))
      assert.strictEqual(bundle.typed_data.to.toLowerCase(), account.toLowerCase())
      assert.strictEqual(bundle.typed_data.data.payments.length, 1)
      assert.strictEqual(bundle.typed_data.data.payments[0]?.amount, "25000000")
      const issued = yield* IssuedRequestStore.use((s) => s.find(bundle.typed_data.salt))
      assert.strictEqual(issued.kind, "batch")
      const refused = yield* Effect.flip(issuePayments(employee, paymentsBody(team, [employee.nanoid], 100)))
      assert.strictEqual(refused._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(onChainUseCases))
  )
})
