/**
 * An invoice follows its payment through a chain that lost the payment's transaction (docs/settlement.md, "Recovery"):
 * recovery sends the request again, and the invoice, still paid once, names the transaction the chain now holds.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Schema } from "effect"
import { seedTestChainTeam, testChainUseCases } from "../../test/ChainKit.ts"
import { flatInvoice } from "../../test/InvoiceKit.ts"
import { pay } from "../../test/PaymentKit.ts"
import { TestChain } from "../chain/TestChain.ts"
import type { InvoiceId } from "../Ids.ts"
import { PaymentLedger } from "../payment/PaymentLedger.ts"
import { paymentStateFilter } from "../payment/PaymentMachine.ts"
import { CreatePaymentsRequest } from "../payment/PaymentRequests.ts"
import { recoverLost } from "../payment/Recovery.ts"
import { createInvoice } from "./CreateInvoice.ts"
import { InvoiceRepository } from "./InvoiceRepository.ts"

describe("an invoice through a reorganisation", () => {
  it.effect("its payment sent again by recovery: still paid once, with the transaction the chain holds", () =>
    Effect.gen(function* () {
      const { team, signingAdmin, key, employee } = yield* seedTestChainTeam
      const since = yield* Clock.currentTimeMillis
      const created = yield* createInvoice(employee, flatInvoice(team, "R-1", 2_500))
      const body = Schema.decodeUnknownSync(CreatePaymentsRequest)({
        from: team,
        to: [{ invoice_nanoid: created.nanoid }],
        pay_now: true
      })
      const first = yield* pay(signingAdmin, key, body)
      yield* TestChain.use((chain) => chain.reorganise(1))
      assert.strictEqual(yield* recoverLost(since), 1)
      const [payment] = yield* PaymentLedger.use((l) => l.list({ payer: team, states: paymentStateFilter.all }))
      const invoice = yield* InvoiceRepository.use((invoices) => invoices.findById(created.nanoid as InvoiceId))
      assert.notStrictEqual(payment?.process_transaction, first.result.transaction)
      assert.deepStrictEqual(
        [invoice.state, invoice.paid_cents, invoice.payments.length, invoice.payments[0]?.transaction],
        ["paid", 2_500, 1, payment?.process_transaction]
      )
    }).pipe(Effect.provide(testChainUseCases))
  )
})
