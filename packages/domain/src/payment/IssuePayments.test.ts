import { assert, layer } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { paymentsBody } from "../../test/PaymentKit.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { IdGenerator } from "../Ids.ts"
import { MembershipRepository } from "../membership/MembershipRepository.ts"
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

  it.effect("a member listed payable: false is refused, named, and nothing is issued (decision 0008)", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, admin, employee, outsider } = yield* seedChainTeam
      // The outsider joins as finance admin: a manager, who may pay but is not paid.
      yield* MembershipRepository.use((m) =>
        Effect.flatMap(
          IdGenerator.use((ids) => ids.make("membership")),
          (nanoid) =>
            m.insert({
              nanoid,
              team_nanoid: team,
              user_nanoid: outsider.nanoid,
              role: "team_finance_admin",
              email: "",
              created_at: "2026-01-01T00:00:00.000Z"
            })
        )
      ).pipe(Effect.orDie)
      const refusals = [
        [signingAdmin, [employee.nanoid, admin.nanoid], admin, "team_admin"],
        [signingAdmin, [signingAdmin.nanoid], signingAdmin, "team_admin"],
        [outsider, [outsider.nanoid], outsider, "team_finance_admin"]
      ] as const
      for (const [caller, recipients, named, role] of refusals) {
        const refused = yield* Effect.flip(issuePayments(caller, paymentsBody(team, recipients, 100)))
        assert.strictEqual(refused._tag, "InvalidRecipient")
        assert.strictEqual(refused.errorCode, "INVALID_RECIPIENT")
        assert.include(refused.message, `${named.nanoid} is a ${role} of the team and cannot be paid`)
      }
      const held = yield* IssuedRequestStore.use((s) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => s.held(team, now))
      )
      assert.strictEqual(held.count, 0)
      // The finance admin pays an employee.
      yield* issuePayments(outsider, paymentsBody(team, [employee.nanoid], 100))
    }).pipe(Effect.provide(onChainUseCases))
  )
})
