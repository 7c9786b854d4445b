import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { getBalance } from "./GetBalance.ts"

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("getBalance", (it) => {
  it.effect("answers the team's account and its USD balance in cents; nobody else's user balance", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, employee, outsider, account } = yield* seedChainTeam
      const balance = yield* getBalance(signingAdmin, { nanoid: team })
      assert.strictEqual(balance.svc_account_address.toLowerCase(), account.toLowerCase())
      assert.deepStrictEqual(balance.balances, [{ currency: "USD", balance_cents: 100_000 }])
      assert.deepStrictEqual((yield* getBalance(signingAdmin, { nanoid: team, currencies: "EUR" })).balances, [])
      const other = yield* Effect.flip(getBalance(signingAdmin, { nanoid: employee.nanoid }))
      assert.strictEqual(other._tag, "InsufficientPermissions")
      assert.strictEqual((yield* Effect.flip(getBalance(outsider, { nanoid: team })))._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(onChainUseCases))
  )
})
