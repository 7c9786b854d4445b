/**
 * PUT /v2/payments on a chain slower than the wait (decision 0061), over real HTTP on SQLite and an anvil of its own
 * whose mining is paused: the request's transaction is journaled and sent, so the answer is 202 with its hash in flight
 * (never a 5xx), the same PUT answers 202 again, the payment is listed `processing` with that hash, and once a block
 * holds it, 200 with the same transaction and the payment recorded. A transaction replaced with raised fees meanwhile
 * is followed: the replay and the list name the newest version, and the one mined is recorded.
 */
import { assert, describe, it } from "@effect/vitest"
import { startAnvil } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { eventually } from "@svc/adapters/test/Eventually"
import { ChainGateway } from "@svc/domain/chain"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Context, Effect, Layer } from "effect"
import { createTestClient, http } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { ChainTestServer, call, fundedTeam, startTestServerWith, type TestServer } from "../test/TestServer.ts"

/** The team's payments as listed: state, amount and the transaction that created each. */
const listed = (server: TestServer, team: string, token: string) =>
  Effect.map(call(server, "GET", `/v2/payments?team_nanoid=${team}`, { token }), (answer) =>
    answer.body.data.items.map(
      (item: { payment: { state: string; amount_cents: number; creation_transaction?: string } }) => [
        item.payment.state,
        item.payment.amount_cents,
        item.payment.creation_transaction
      ]
    )
  )

/**
 * A server on an anvil of its own that waits 1 s for settlement, a funded team, and a payment of 12.34 USD signed by
 * its admin; mining is paused, so the payment's transaction stays in the node's mempool.
 */
const slowChain = (relayer: { readonly replaceAfterMillis?: number } = {}) =>
  Effect.gen(function* () {
    const anvil = yield* startAnvil()
    const node = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) })
    const chainContext = yield* Layer.build(
      EmbeddedChain.layer({ rpcUrl: anvil.rpcUrl, chainId: 42161, relayer })
    ).pipe(Effect.orDie)
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
    return { server, node, team: t.team, token: t.token, admin: t.admin, bundle, signed }
  })

describe("PUT /v2/payments on a chain slower than the wait", () => {
  it.live(
    "answers 202 with the transaction in flight, 202 again to the same PUT (same key), then 200 once it is mined",
    () =>
      Effect.gen(function* () {
        const { server, node, team, token, bundle, signed } = yield* slowChain()
        const t = { team, token }
        // Every PUT carries one Idempotency-Key: a 202 is never kept for it, so the same key comes to the 200.
        const keyed = { "idempotency-key": "in-flight-once" }
        const started = Date.now()
        const first = yield* call(server, "PUT", "/v2/payments", { token: t.token, body: signed, headers: keyed })
        assert.strictEqual(first.status, 202, JSON.stringify(first.body))
        assert.isAtLeast(Date.now() - started, 1_000)
        assert.strictEqual(first.body.success, true)
        assert.strictEqual(first.body.data.status, "in_flight")
        const transaction = first.body.data.transaction as `0x${string}`
        assert.match(transaction, /^0x[0-9a-f]{64}$/)
        const data = bundle.typed_data.data as { readonly payments?: ReadonlyArray<unknown> }
        assert.deepStrictEqual(first.body.data.payments, data.payments ?? [bundle.typed_data.data])
        const pending = yield* Effect.promise(() =>
          node.request({ method: "eth_getTransactionByHash", params: [transaction] } as never)
        )
        assert.isNull((pending as { blockNumber: string | null }).blockNumber)
        // The same PUT, while it is in flight: 202 with the same transaction.
        const replay = yield* call(server, "PUT", "/v2/payments", { token: t.token, body: signed, headers: keyed })
        assert.deepStrictEqual([replay.status, replay.body.data.transaction], [202, transaction])
        // Listed meanwhile as processing, with the transaction in flight.
        assert.deepStrictEqual(yield* listed(server, t.team, t.token), [["processing", 1_234, transaction]])

        // A block: the execution goes on by itself and records the payment; the same PUT answers 200.
        yield* Effect.promise(() => node.mine({ blocks: 1 }))
        const final = yield* eventually(
          Effect.map(
            call(server, "PUT", "/v2/payments", { token: t.token, body: signed, headers: keyed }),
            (answer) => answer.status === 200 && answer
          ),
          { what: "the PUT's 200", every: "100 millis" }
        )
        assert.strictEqual(final.status, 200, JSON.stringify(final.body))
        assert.deepStrictEqual(final.body.data, { transaction, payments: first.body.data.payments })
        assert.deepStrictEqual(yield* listed(server, t.team, t.token), [["complete", 1_234, transaction]])
      }).pipe(Effect.scoped)
  )

  it.live(
    "PUT /v2/invites/manager answers 202 with the grant in flight, 202 again, then 200 with the invite accepted",
    () =>
      Effect.gen(function* () {
        const t = yield* slowChain()
        const wallet = privateKeyToAccount(generatePrivateKey()).address
        const created = yield* call(t.server, "POST", "/v2/invites/manager", {
          token: t.token,
          body: { nanoid: t.team, invites: [{ email: "fin@example.com", role: "team_finance_admin", wallet }] }
        })
        assert.strictEqual(created.status, 200, JSON.stringify(created.body))
        const bundle = created.body.data as TypedDataBundle & { invites: Array<string> }
        const body = {
          invites: bundle.invites,
          signer: t.admin.address,
          typed_data: bundle.typed_data,
          signature: yield* Effect.promise(() => t.admin.signTypedData(signableOf(bundle) as never))
        }
        const first = yield* call(t.server, "PUT", "/v2/invites/manager", { token: t.token, body })
        assert.strictEqual(first.status, 202, JSON.stringify(first.body))
        assert.deepStrictEqual(Object.keys(first.body.data).sort(), ["invites", "status", "transaction"])
        assert.deepStrictEqual([first.body.data.invites, first.body.data.status], [bundle.invites, "in_flight"])
        const transaction = first.body.data.transaction as string
        const replay = yield* call(t.server, "PUT", "/v2/invites/manager", { token: t.token, body })
        assert.deepStrictEqual([replay.status, replay.body.data.transaction], [202, transaction])
        // Still pending (listed) while the grant is in flight.
        const pending = yield* call(t.server, "GET", `/v2/invites?nanoid=${t.team}`, { token: t.token })
        assert.deepStrictEqual(
          pending.body.data.map((invite: { nanoid: string }) => invite.nanoid),
          bundle.invites
        )

        // A block: the grant goes on by itself; the invite is accepted, and the same PUT answers 200.
        yield* Effect.promise(() => t.node.mine({ blocks: 1 }))
        const final = yield* eventually(
          Effect.map(
            call(t.server, "PUT", "/v2/invites/manager", { token: t.token, body }),
            (answer) => answer.status === 200 && answer
          ),
          { what: "the PUT's 200", every: "100 millis" }
        )
        assert.strictEqual(final.status, 200, JSON.stringify(final.body))
        assert.deepStrictEqual(final.body.data, { invites: bundle.invites, transaction })
        const after = yield* call(t.server, "GET", `/v2/invites?nanoid=${t.team}`, { token: t.token })
        assert.deepStrictEqual(after.body.data, [])
      }).pipe(Effect.scoped)
  )

  it.live(
    "a transaction replaced with raised fees while in flight: the replay and the list follow it; the mined one is recorded",
    () =>
      Effect.gen(function* () {
        const t = yield* slowChain({ replaceAfterMillis: 2_000 })
        const first = yield* call(t.server, "PUT", "/v2/payments", { token: t.token, body: t.signed })
        assert.strictEqual(first.status, 202, JSON.stringify(first.body))
        const sent = first.body.data.transaction as string

        // Pending past `replaceAfterMillis`, it is replaced: the same PUT answers the new version.
        const replay = yield* eventually(
          Effect.map(
            call(t.server, "PUT", "/v2/payments", { token: t.token, body: t.signed }),
            (answer) => answer.body.data.transaction !== sent && answer
          ),
          { what: "the replacement answered", every: "100 millis" }
        )
        assert.strictEqual(replay.status, 202, JSON.stringify(replay.body))
        assert.notStrictEqual(replay.body.data.transaction, sent)
        // The list names the version in flight (read between two answers that agree, as it may be replaced again).
        let current: ReadonlyArray<unknown> = []
        for (let i = 0; i < 20; i++) {
          const before = (yield* call(t.server, "PUT", "/v2/payments", { token: t.token, body: t.signed })).body.data
          current = yield* listed(t.server, t.team, t.token)
          const after = (yield* call(t.server, "PUT", "/v2/payments", { token: t.token, body: t.signed })).body.data
          if (before.transaction === after.transaction) {
            assert.deepStrictEqual(current, [["processing", 1_234, after.transaction]])
            break
          }
        }
        assert.strictEqual(current.length, 1)

        // A block holds the newest version: that one is recorded, and listed.
        yield* Effect.promise(() => t.node.mine({ blocks: 1 }))
        const final = yield* eventually(
          Effect.map(
            call(t.server, "PUT", "/v2/payments", { token: t.token, body: t.signed }),
            (answer) => answer.status === 200 && answer
          ),
          { what: "the PUT's 200", every: "100 millis" }
        )
        assert.strictEqual(final.status, 200, JSON.stringify(final.body))
        const mined = final.body.data.transaction as `0x${string}`
        assert.notStrictEqual(mined, sent)
        const receipt = yield* Effect.promise(() =>
          t.node.request({ method: "eth_getTransactionReceipt", params: [mined] } as never)
        )
        assert.strictEqual((receipt as { status: string }).status, "0x1")
        assert.deepStrictEqual(yield* listed(t.server, t.team, t.token), [["complete", 1_234, mined]])
      }).pipe(Effect.scoped)
  )
})
