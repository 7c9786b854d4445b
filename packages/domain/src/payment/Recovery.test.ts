/**
 * Recovery on the in-memory chain, under `TestClock` (decision 0095): the sweep finishes what dead holders left, each
 * request as the chain says (recorded when mined, followed while pending, sent again only when the chain lacks it),
 * and a chain that lost recorded requests gets them again, each paid once.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { seedTestChainTeam, testChainUseCases } from "../../test/ChainKit.ts"
import { paymentsBody, signPayments } from "../../test/PaymentKit.ts"
import { outboxEvents } from "../../test/UseCaseKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { TestChain } from "../chain/TestChain.ts"
import { authorizeSignedRequest } from "../eip712/SignedRequest.ts"
import { executeSignedPayments } from "./ExecuteSignedPayments.ts"
import { PaymentLedger } from "./PaymentLedger.ts"
import { paymentStateFilter } from "./PaymentMachine.ts"
import { recoverAbandoned, recoverLost } from "./Recovery.ts"

type Seeded = Effect.Success<typeof seedTestChainTeam>

/** A payment of `cents` to the seeded employee, signed. */
const signed = (seeded: Seeded, cents: number) =>
  signPayments(seeded.signingAdmin, seeded.key, paymentsBody(seeded.team, [seeded.employee.nanoid], cents))

/** Its PUT, in a process that is killed once the chain took its transaction (as `kill -9` would). */
const killedAfterSend = (seeded: Seeded, cents: number, mining: "auto" | "manual") =>
  Effect.gen(function* () {
    const put = yield* signed(seeded, cents)
    yield* TestChain.use((chain) => chain.set({ answers: "die", mining }))
    const exit = yield* Effect.exit(executeSignedPayments(seeded.signingAdmin, put))
    assert.isTrue(Exit.hasDies(exit))
    yield* TestChain.use((chain) => chain.set({ answers: "kept", mining: "auto" }))
    return put.typed_data.salt
  })

/** The team's payments: amount → [state, transaction]. */
const paymentsOf = (team: string) =>
  Effect.map(
    PaymentLedger.use((ledger) => ledger.list({ payer: team as never, states: paymentStateFilter.all })),
    (payments) => new Map(payments.map((p) => [p.amount_cents, [p.state, p.creation_transaction] as const]))
  )

/** How many transactions carried each salt. */
const sentBySalt = Effect.map(
  TestChain.use((chain) => chain.sent),
  (sent) => {
    const counts = new Map<string, number>()
    for (const tx of sent)
      if (tx.salt !== undefined) counts.set(String(tx.salt), (counts.get(String(tx.salt)) ?? 0) + 1)
    return counts
  }
)

const balanceOf = (account: `0x${string}`) => ChainGateway.use((chain) => chain.balanceOf(account))

describe("recovery on the test chain", () => {
  it.effect("dead holders' requests are finished once their lease lapses: recorded, followed, or sent again", () =>
    Effect.gen(function* () {
      const seeded = yield* seedTestChainTeam
      const mined = yield* killedAfterSend(seeded, 100, "auto")
      const pending = yield* killedAfterSend(seeded, 200, "manual")
      // Killed between its claim and its send: the chain never saw it.
      const neverSent = yield* signed(seeded, 400)
      yield* authorizeSignedRequest({
        typedData: neverSent.typed_data,
        signer: neverSent.signer,
        signature: neverSent.signature
      })
      yield* TestChain.use((chain) => chain.set({ mining: "manual" }))

      // While their leases hold, nothing is taken.
      yield* TestClock.adjust("19 seconds")
      assert.deepStrictEqual(yield* recoverAbandoned(), [])
      yield* TestClock.adjust("1 second")
      const taken = yield* recoverAbandoned()
      assert.sameMembers([...taken], [mined, pending, neverSent.typed_data.salt])
      yield* TestClock.adjust("1 second")
      const payments = yield* paymentsOf(seeded.team)
      assert.strictEqual(payments.get(100)?.[0], "complete")
      assert.strictEqual(payments.get(200)?.[0], "processing")
      assert.strictEqual(payments.get(400)?.[0], "processing")

      // Mined: both recorded by their new holder, each sent once in all.
      yield* TestChain.use((chain) => chain.mine)
      yield* TestClock.adjust("5 seconds")
      const done = yield* paymentsOf(seeded.team)
      assert.deepStrictEqual(
        [...done.values()].map(([state]) => state),
        ["complete", "complete", "complete"]
      )
      assert.deepStrictEqual([...(yield* sentBySalt).values()], [1, 1, 1])
      assert.strictEqual(yield* balanceOf(seeded.account), (1_000n - 7n) * 10n ** 6n)
      assert.strictEqual((yield* outboxEvents).filter((e) => e.event_type === "payment.sent").length, 3)
      // Nothing is left for a later sweep.
      yield* TestClock.adjust("30 seconds")
      assert.deepStrictEqual(yield* recoverAbandoned(), [])
    }).pipe(Effect.provide(testChainUseCases))
  )

  it.effect("a chain that lost recorded requests (restored from an older state) gets them again, each paid once", () =>
    Effect.gen(function* () {
      const seeded = yield* seedTestChainTeam
      const since = yield* Clock.currentTimeMillis
      for (const cents of [300, 500]) {
        const put = yield* signed(seeded, cents)
        yield* executeSignedPayments(seeded.signingAdmin, put)
      }
      const before = yield* paymentsOf(seeded.team)
      assert.strictEqual(yield* balanceOf(seeded.account), 992n * 10n ** 6n)
      // The chain forgets both blocks: the salts are unspent again, and the money back.
      yield* TestChain.use((chain) => chain.reorganise(2))
      assert.strictEqual(yield* balanceOf(seeded.account), 1_000n * 10n ** 6n)

      assert.strictEqual(yield* recoverLost(since), 2)
      const after = yield* paymentsOf(seeded.team)
      assert.deepStrictEqual(
        [...after.values()].map(([state]) => state),
        ["complete", "complete"]
      )
      assert.notStrictEqual(after.get(300)?.[1], before.get(300)?.[1])
      assert.strictEqual(yield* balanceOf(seeded.account), 992n * 10n ** 6n)
      assert.deepStrictEqual([...(yield* sentBySalt).values()], [2, 2])
      // Announced once: sending again adds no event.
      assert.strictEqual((yield* outboxEvents).filter((e) => e.event_type === "payment.sent").length, 2)
      // What the chain holds is not sent again.
      assert.strictEqual(yield* recoverLost(since), 0)
    }).pipe(Effect.provide(testChainUseCases))
  )
})
