import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { chainLayer, onChainUseCases, seedChainTeam } from "../../test/ChainKit.ts"
import { paymentsBody } from "../../test/PaymentKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { paymentsRequestOf } from "../chain/ForwardRequest.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import type { PaymentsTypedDataMessage } from "../eip712/TypedData.ts"
import { signTypedDataBundle } from "../eip712/TypedDataSignature.ts"
import { finishAbandonedRequests } from "./AbandonedExecutions.ts"
import { issuePayments } from "./IssuePayments.ts"
import { executionLeaseMillis, PaymentLedger } from "./PaymentLedger.ts"
import { paymentStateFilter } from "./PaymentMachine.ts"

layer(chainLayer, { timeout: 120_000, excludeTestServices: true })("finishAbandonedRequests", (it) => {
  it.effect(
    "requests whose holder died are finished without their PUT: recorded when mined, sent again when lost, left unsigned",
    () =>
      Effect.gen(function* () {
        const { team, signingAdmin, key, employee } = yield* seedChainTeam
        // What a process killed after claiming leaves: the salt claimed, its lease long expired.
        const died = (cents: number) =>
          Effect.gen(function* () {
            const bundle = yield* issuePayments(signingAdmin, paymentsBody(team, [employee.nanoid], cents))
            const signature = yield* signTypedDataBundle(bundle, key)
            const claim = yield* IssuedRequestStore.use((store) =>
              store.claim(bundle.typed_data.salt, Date.now() - executionLeaseMillis - 1_000)
            ).pipe(Effect.orDie)
            const request = paymentsRequestOf(bundle.typed_data as PaymentsTypedDataMessage)
            // Killed after sending: its signature and transaction were noted too.
            const noted = (transaction: string) =>
              PaymentLedger.use((ledger) =>
                ledger.noteInFlight({
                  salt: bundle.typed_data.salt,
                  claimToken: claim.claimToken,
                  signature,
                  result: { transaction, payments: [] },
                  payments: []
                })
              )
            return { salt: bundle.typed_data.salt, request, signature, noted }
          })
        // Mined before its holder died: only the record is missing.
        const mined = yield* died(100)
        const settlement = yield* ChainGateway.use((chain) =>
          chain.executePayments({ request: mined.request, signature: mined.signature })
        ).pipe(Effect.orDie)
        yield* mined.noted(settlement.transactionHash)
        // Lost: the transaction it noted is none the journal knows (the node never took it).
        const lost = yield* died(200)
        const unknown = `0x${"ab".repeat(32)}`
        yield* lost.noted(unknown)
        // Killed before it noted a signature: nothing to send again; the same PUT finishes it.
        const unsigned = yield* died(400)

        const finished = yield* finishAbandonedRequests(100)
        const outcomeOf = (salt: string) => finished.find((done) => done.salt === salt)?.outcome
        assert.deepStrictEqual(
          [outcomeOf(mined.salt), outcomeOf(lost.salt), outcomeOf(unsigned.salt)],
          ["recorded", "sent", "left"]
        )

        // Each paid once, and recorded complete with its transaction and its events.
        const paid = yield* PaymentLedger.use((ledger) => ledger.list({ payer: team, states: paymentStateFilter.all }))
        const byAmount = new Map(paid.map((p) => [p.amount_cents, p]))
        assert.deepStrictEqual(
          [...byAmount.keys()].sort((a, b) => a - b),
          [100, 200]
        )
        assert.strictEqual(byAmount.get(100)?.state, "complete")
        assert.strictEqual(byAmount.get(100)?.creation_transaction, settlement.transactionHash)
        assert.strictEqual(byAmount.get(200)?.state, "complete")
        assert.match(byAmount.get(200)?.creation_transaction ?? "", /^0x[0-9a-f]{64}$/)
        assert.notStrictEqual(byAmount.get(200)?.creation_transaction, unknown)
        assert.strictEqual((yield* outboxEvents).filter((e) => e.event_type === "payment.sent").length, 2)
        // Nothing more to finish but the unsigned one, left again.
        const again = yield* finishAbandonedRequests(100)
        assert.deepStrictEqual(
          again.map((done) => [done.salt, done.outcome]),
          [[unsigned.salt, "left"]]
        )
      }).pipe(Effect.provide(onChainUseCases))
  )
})
