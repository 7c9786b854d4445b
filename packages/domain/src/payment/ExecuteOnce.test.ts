/**
 * `executeOnce` on the in-memory chain, under `TestClock` (decision 0095): what a PUT answers after each fault, and
 * how long a request whose holder died waits. No node, no sleeps: the test moves the clock.
 */
import { assert, describe, it } from "@effect/vitest"
import { Clock, Effect, type Fiber } from "effect"
import { TestClock } from "effect/testing"
import { seedTestChainTeam, testChainUseCases } from "../../test/ChainKit.ts"
import { paymentsBody, signPayments } from "../../test/PaymentKit.ts"
import { ChainGateway } from "../chain/ChainGateway.ts"
import { TestChain } from "../chain/TestChain.ts"
import { IssuedRequestStore } from "../eip712/IssuedRequestStore.ts"
import { authorizeSignedRequest } from "../eip712/SignedRequest.ts"
import { ErrorCatalog } from "../errors/ErrorCatalog.ts"
import { executeSignedPayments } from "./ExecuteSignedPayments.ts"
import { hold } from "./Holding.ts"
import { PaymentLedger } from "./PaymentLedger.ts"
import { paymentStateFilter } from "./PaymentMachine.ts"

/** The seeded team on the test chain, and a signed payment of `cents` to its employee. */
const signedPayment = (cents = 2_500) =>
  Effect.gen(function* () {
    const seeded = yield* seedTestChainTeam
    const put = yield* signPayments(
      seeded.signingAdmin,
      seeded.key,
      paymentsBody(seeded.team, [seeded.employee.nanoid], cents)
    )
    const execute = executeSignedPayments(seeded.signingAdmin, put)
    const salt = put.typed_data.salt
    const request = { typedData: put.typed_data, signer: put.signer, signature: put.signature }
    return { ...seeded, put, salt, request, execute }
  })

/** What `fiber` answered by now (the clock moved): a fiber still running fails the test at once. */
const answerOf = <A, E>(fiber: Fiber.Fiber<A, E>) =>
  Effect.suspend(() => {
    const exit = fiber.pollUnsafe()
    return exit === undefined ? Effect.die(new Error("the execution has not answered by now")) : exit
  })

/** The chain's count of transactions carrying `salt`. */
const sentFor = (salt: string) =>
  Effect.map(
    TestChain.use((chain) => chain.sent),
    (sent) => sent.filter((tx) => tx.salt === BigInt(salt)).length
  )

const balanceOf = (account: `0x${string}`) => ChainGateway.use((chain) => chain.balanceOf(account))

/** The team's payments, by state. */
const statesOf = (team: string) =>
  Effect.map(
    PaymentLedger.use((ledger) => ledger.list({ payer: team as never, states: paymentStateFilter.all })),
    (payments) => payments.map((payment) => payment.state)
  )

describe("executeOnce on the test chain", () => {
  it.effect("a send whose answer is lost answers 202 with its hash, never 503; mined, it is recorded once", () =>
    Effect.gen(function* () {
      const payment = yield* signedPayment()
      yield* TestChain.use((chain) => chain.set({ mining: "manual", answers: "lost" }))
      const first = yield* Effect.forkChild(payment.execute)
      yield* TestClock.adjust("20 seconds")
      const answered = yield* answerOf(first)
      assert.strictEqual(answered._tag, "InFlight")
      const [sent] = yield* TestChain.use((chain) => chain.sent)
      assert.strictEqual(answered.result.transaction, sent?.hash)
      assert.deepStrictEqual(yield* statesOf(payment.team), ["processing"])

      // Mined: the holder, still recovering, finds it settled and records it; the replay answers 200, same hash.
      yield* TestChain.use((chain) => chain.mine)
      yield* TestClock.adjust("5 seconds")
      const replay = yield* payment.execute
      assert.deepStrictEqual([replay._tag, replay.result.transaction], ["Executed", sent?.hash])
      assert.deepStrictEqual(yield* statesOf(payment.team), ["complete"])
      assert.strictEqual(yield* sentFor(payment.salt), 1)
      assert.strictEqual(yield* balanceOf(payment.account), 975n * 10n ** 6n)
    }).pipe(Effect.provide(testChainUseCases))
  )

  it.effect("a chain unreachable before anything is sent answers 503 and releases the claim: sent once, later", () =>
    Effect.gen(function* () {
      const payment = yield* signedPayment()
      yield* TestChain.use((chain) => chain.set({ reachable: false }))
      const down = yield* Effect.flip(payment.execute)
      assert.strictEqual(down._tag, "ChainUnreachable")
      assert.deepStrictEqual(yield* PaymentLedger.use((ledger) => ledger.outcome(payment.salt)), { state: "issued" })
      yield* TestChain.use((chain) => chain.set({ reachable: true }))
      const paid = yield* payment.execute
      assert.strictEqual(paid._tag, "Executed")
      assert.strictEqual(yield* sentFor(payment.salt), 1)
    }).pipe(Effect.provide(testChainUseCases))
  )

  it.effect("a dead holder's request is taken over as soon as its lease lapses (20 s), and paid once", () =>
    Effect.gen(function* () {
      const payment = yield* signedPayment()
      // What a PUT does first, then its process died (kill -9): the claim stays, renewed by no one.
      yield* authorizeSignedRequest(payment.request)
      const started = yield* Clock.currentTimeMillis
      const replay = yield* Effect.forkChild(payment.execute)
      yield* TestClock.adjust("20 seconds")
      const answered = yield* answerOf(replay)
      assert.strictEqual(answered._tag, "Executed")
      assert.strictEqual((yield* Clock.currentTimeMillis) - started, 20_000)
      assert.strictEqual(yield* sentFor(payment.salt), 1)
      assert.deepStrictEqual(yield* statesOf(payment.team), ["complete"])
      assert.strictEqual(yield* balanceOf(payment.account), 975n * 10n ** 6n)
    }).pipe(Effect.provide(testChainUseCases))
  )

  it.effect("a live holder keeps its claim past any lease by renewing it: replays answer its transaction", () =>
    Effect.gen(function* () {
      const payment = yield* signedPayment()
      yield* TestChain.use((chain) => chain.set({ mining: "manual", receiptTimeoutMillis: 600_000 }))
      const first = yield* Effect.forkChild(payment.execute)
      yield* TestClock.adjust("20 seconds")
      const inFlight = yield* answerOf(first)
      assert.strictEqual(inFlight._tag, "InFlight")
      // Three minutes on, the holder still waits for its block: its claim is its own, never taken over.
      yield* TestClock.adjust("180 seconds")
      const now = yield* Clock.currentTimeMillis
      assert.deepStrictEqual(yield* IssuedRequestStore.use((store) => store.abandoned(now, 10)), [])
      const replay = yield* payment.execute
      assert.deepStrictEqual([replay._tag, replay.result.transaction], ["InFlight", inFlight.result.transaction])
      yield* TestChain.use((chain) => chain.mine)
      const done = yield* payment.execute
      assert.deepStrictEqual([done._tag, done.result.transaction], ["Executed", inFlight.result.transaction])
      assert.strictEqual(yield* sentFor(payment.salt), 1)
    }).pipe(Effect.provide(testChainUseCases))
  )

  it.effect(
    "a replay of a request a live holder has not sent yet answers 409 EXECUTION_IN_PROGRESS, not executed",
    () =>
      Effect.gen(function* () {
        const payment = yield* signedPayment()
        // A live holder, renewing its claim, that has not sent anything yet (its key busy, its fees high).
        const claimed = yield* authorizeSignedRequest(payment.request)
        yield* hold(claimed, 20_000, Effect.never)
        const replay = yield* Effect.forkChild(Effect.flip(payment.execute))
        yield* TestClock.adjust("30 seconds")
        const refused = yield* answerOf(replay)
        assert.strictEqual(refused._tag, "ExecutionInProgress")
        assert.strictEqual(ErrorCatalog[(refused as { errorCode: keyof typeof ErrorCatalog }).errorCode].status, 409)
        assert.strictEqual((refused as { errorCode: string }).errorCode, "EXECUTION_IN_PROGRESS")
        assert.strictEqual(yield* sentFor(payment.salt), 0)
      }).pipe(Effect.provide(testChainUseCases))
  )
})
