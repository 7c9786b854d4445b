import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { flatInvoice, memberOf } from "../../test/InvoiceKit.ts"
import { pay, paymentsBody } from "../../test/PaymentKit.ts"
import { createInvoice } from "../invoice/CreateInvoice.ts"
import { CreatePaymentsRequest, PaymentsQuery } from "./PaymentRequests.ts"
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

  it.effect("receivable: a member sees what the team paid or owes them, their invoice's among it; not others'", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, key, employee } = yield* seedChainTeam
      const contractor = yield* memberOf(team, 301, "team_contractor")
      const invoice = yield* createInvoice(employee, flatInvoice(team, "E-9", 900))
      const payAt = Math.floor(Date.now() / 1000) + 3600
      yield* pay(
        signingAdmin,
        key,
        Schema.decodeUnknownSync(CreatePaymentsRequest)({
          from: team,
          to: [{ invoice_nanoid: invoice.nanoid }],
          pay_now: false,
          pay_at_time: payAt
        })
      )
      yield* pay(signingAdmin, key, paymentsBody(team, [employee.nanoid, contractor.nanoid], 300))
      const owed = yield* queryPayments(employee, query({ team_nanoid: team, query_type: "receivable" }))
      assert.deepStrictEqual(
        owed.items.map((i) => [
          i.payment.amount_cents,
          i.payment.state,
          i.invoice.synthesized,
          i.invoice.invoice_status
        ]),
        [
          [300, "complete", true, "draft"],
          [900, "intent", false, "submitted"]
        ]
      )
      const others = yield* Effect.flip(
        queryPayments(employee, query({ team_nanoid: team, query_type: "receivable", recipient: contractor.nanoid }))
      )
      assert.strictEqual(others._tag, "InsufficientPermissions")
      const payable = yield* Effect.flip(queryPayments(employee, query({ team_nanoid: team, query_type: "payable" })))
      assert.strictEqual(payable._tag, "InsufficientPermissions")
    }).pipe(Effect.provide(onChainUseCases))
  )
})
