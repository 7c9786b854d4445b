import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { pay, paymentsBody } from "../../test/PaymentKit.ts"
import { PaymentsQuery } from "./PaymentRequests.ts"
import { queryPayments } from "./QueryPayments.ts"

const query = Schema.decodeUnknownSync(PaymentsQuery)

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("queryPayments", (it) => {
  it.effect("pages the team's payments newest first behind a cursor; refuses an outsider", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, key, employee, outsider } = yield* seedChainTeam
      yield* pay(signingAdmin, key, paymentsBody(team, [employee.nanoid], 100))
      yield* pay(signingAdmin, key, paymentsBody(team, [employee.nanoid], 200))
      const first = yield* queryPayments(signingAdmin, query({ team_nanoid: team, query_type: "payable", limit: "1" }))
      assert.deepStrictEqual(
        first.items.map((i) => i.payment.amount_cents),
        [200]
      )
      assert.isString(first.next_cursor)
      const second = yield* queryPayments(
        signingAdmin,
        query({ team_nanoid: team, query_type: "payable", limit: "1", cursor: first.next_cursor })
      )
      assert.deepStrictEqual(
        second.items.map((i) => i.payment.amount_cents),
        [100]
      )
      const refused = yield* Effect.flip(queryPayments(outsider, query({ team_nanoid: team, query_type: "payable" })))
      assert.strictEqual(refused._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(onChainUseCases))
  )
})
