/**
 * PUT /v2/payments on a chain slower than the wait (decision 0061), over real HTTP on SQLite and an anvil of its own
 * whose mining is paused: the request's transaction is journaled and sent, so the answer is 202 with its hash in flight
 * (never a 5xx), the same PUT answers 202 again at once, and once a block holds it, 200 with the same transaction and
 * the payment recorded.
 */
import { assert, describe, it } from "@effect/vitest"
import { startAnvil } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { ChainGateway } from "@svc/domain/chain"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Context, Effect, Layer } from "effect"
import { createTestClient, http } from "viem"
import { ChainTestServer, call, fundedTeam, startTestServerWith } from "./TestServer.ts"

describe("PUT /v2/payments on a chain slower than the wait", () => {
  it.live("answers 202 with the transaction in flight, 202 again to the same PUT, then 200 once it is mined", () =>
    Effect.gen(function* () {
      const anvil = yield* startAnvil()
      const node = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) })
      const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl: anvil.rpcUrl, chainId: 42161 })).pipe(
        Effect.orDie
      )
      const server = yield* startTestServerWith({
        chain: Layer.succeedContext(chainContext),
        limits: { settlementWaitMillis: 1_000 }
      })
      const t = yield* fundedTeam(100_000_000n).pipe(
        Effect.provideService(ChainTestServer, {
          server,
          embedded: Context.get(chainContext, EmbeddedChain),
          gateway: Context.get(chainContext, ChainGateway)
        })
      )
      const body = {
        from: t.team,
        to: [{ to: t.employee.user, amount_cents: 1_234, currency_symbol: "USD", invoice_description: "slow chain" }],
        pay_now: true
      }
      const issued = yield* call(server, "POST", "/v2/payments", { token: t.token, body })
      assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
      const bundle = issued.body.data as TypedDataBundle
      const signed = {
        ...body,
        signer: t.admin.address,
        typed_data: bundle.typed_data,
        signature: yield* Effect.promise(() => t.admin.signTypedData(signableOf(bundle) as never))
      }

      // No block comes: the transaction is sent and stays in the node's mempool.
      yield* Effect.promise(() => node.setAutomine(false))
      const started = Date.now()
      const first = yield* call(server, "PUT", "/v2/payments", { token: t.token, body: signed })
      assert.strictEqual(first.status, 202, JSON.stringify(first.body))
      assert.isAtLeast(Date.now() - started, 1_000)
      assert.strictEqual(first.body.success, true)
      assert.strictEqual(first.body.data.status, "in_flight")
      const transaction = first.body.data.transaction as `0x${string}`
      assert.match(transaction, /^0x[0-9a-f]{64}$/)
      const data = bundle.typed_data.data as { readonly payments?: ReadonlyArray<unknown> }
      assert.deepStrictEqual(first.body.data.payments, data.payments ?? [bundle.typed_data.data])
      const pending = yield* Effect.promise(() =>
        createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) }).request({
          method: "eth_getTransactionByHash",
          params: [transaction]
        } as never)
      )
      assert.isNull((pending as { blockNumber: string | null }).blockNumber)
      // The same PUT, while it is in flight: 202 with the same transaction, without waiting again.
      const replayStarted = Date.now()
      const replay = yield* call(server, "PUT", "/v2/payments", { token: t.token, body: signed })
      assert.deepStrictEqual([replay.status, replay.body.data.transaction], [202, transaction])
      assert.isBelow(Date.now() - replayStarted, 1_000)
      const listedBefore = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}`, { token: t.token })
      assert.deepStrictEqual(listedBefore.body.data.items, [])

      // A block: the execution goes on by itself and records the payment; the same PUT answers 200.
      yield* Effect.promise(() => node.mine({ blocks: 1 }))
      let final = yield* call(server, "PUT", "/v2/payments", { token: t.token, body: signed })
      for (let i = 0; i < 100 && final.status !== 200; i++) {
        yield* Effect.sleep(100)
        final = yield* call(server, "PUT", "/v2/payments", { token: t.token, body: signed })
      }
      assert.strictEqual(final.status, 200, JSON.stringify(final.body))
      assert.deepStrictEqual(final.body.data, { transaction, payments: first.body.data.payments })
      const listed = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}`, { token: t.token })
      assert.deepStrictEqual(
        listed.body.data.items.map((item: { payment: { state: string; amount_cents: number } }) => [
          item.payment.state,
          item.payment.amount_cents
        ]),
        [["complete", 1_234]]
      )
    }).pipe(Effect.scoped)
  )
})
