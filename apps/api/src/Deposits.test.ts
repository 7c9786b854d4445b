/**
 * Deposits (issue 25, decision 0064), on SQLite and on jongodb, each with an anvil of its own: the follower reads USDC
 * arriving at a team's account from an outside wallet, announces it once it is deep enough (`deposit.received`, once,
 * whoever reads the log again), lists it on GET /v2/deposits; drops a deposit reorganised away before its
 * confirmation without an event, withdraws one reorganised away after it with one; and catches up 1,000 blocks
 * without a missed or doubled deposit.
 */
import { assert, describe, it } from "@effect/vitest"
import { startAnvil } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { eventually } from "@svc/adapters/test/Eventually"
import { testUsdcAbi } from "@svc/contracts"
import { ChainGateway } from "@svc/domain/chain"
import { DepositFollower, DepositLedger } from "@svc/domain/deposit"
import { DepositEventPayload, EventOutbox, TokenTransferEventPayload } from "@svc/domain/event"
import type { FencingToken } from "@svc/domain/Lease"
import { Context, Effect, Layer, Schema } from "effect"
import { Webhook } from "standardwebhooks"
import { createTestClient, createWalletClient, http, parseEther, publicActions } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import {
  ChainTestServer,
  call,
  fundedTeam,
  sqliteOf,
  startMongoTestServer,
  startTestServerWith,
  type TestServer
} from "../test/TestServer.ts"
import { startReceiver } from "../test/WebhookReceiver.ts"

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

/** A server on `storage` and an anvil of its own, a funded team, and an outside wallet holding USDC and gas. */
const setUp = (storage: "sqlite" | "mongo") =>
  Effect.gen(function* () {
    const anvil = yield* startAnvil()
    const node = createTestClient({ mode: "anvil", transport: http(anvil.rpcUrl) }).extend(publicActions)
    const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl: anvil.rpcUrl, chainId: 42161 })).pipe(
      Effect.orDie
    )
    const chain = Layer.succeedContext(chainContext)
    const server: TestServer =
      storage === "sqlite" ? yield* startTestServerWith({ chain }) : yield* startMongoTestServer({ chain })
    const embedded = Context.get(chainContext, EmbeddedChain)
    const t = yield* fundedTeam(1_000_000_000n).pipe(
      Effect.provideService(ChainTestServer, { server, embedded, gateway: Context.get(chainContext, ChainGateway) })
    )
    const outsider = privateKeyToAccount(generatePrivateKey())
    yield* Effect.promise(() => node.setBalance({ address: outsider.address, value: parseEther("1") }))
    yield* embedded.mint(outsider.address, 1_000_000_000n).pipe(Effect.orDie)
    const wallet = createWalletClient({ account: outsider, transport: http(anvil.rpcUrl) })
    /** The outside wallet sends `units` of USDC to the team's account, mined; answers the transaction. */
    const send = (units: bigint) =>
      Effect.promise(async () => {
        const hash = await wallet.writeContract({
          chain: null,
          address: embedded.suite.token,
          abi: testUsdcAbi,
          functionName: "transfer",
          args: [t.account, units]
        })
        // Automine answers the hash before the block is always there: the follower must find it mined.
        await node.waitForTransactionReceipt({ hash, pollingInterval: 10 })
        return hash
      })
    /**
     * One follower pass, as this process's follower runs it (renewing the lease it holds, `held`), or as another
     * process's (`another`: no token of its own).
     */
    const holders = { held: undefined as FencingToken | undefined }
    const follow = (options: { readonly confirmations?: number; readonly another?: boolean } = {}) =>
      DepositFollower.followOnce(
        { confirmations: options.confirmations ?? 1, startBlock: 0, batchBlocks: 200 },
        options.another === true ? undefined : holders.held
      ).pipe(
        Effect.tap((pass) =>
          Effect.sync(() => {
            if (options.another !== true && pass.followed) holders.held = pass.token
          })
        ),
        Effect.provide(server.context)
      )
    const listed = Effect.map(
      call(server, "GET", `/v2/deposits?team_nanoid=${t.team}`, { token: t.token }),
      (answer) => {
        assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
        return answer.body.data.items as ReadonlyArray<Json>
      }
    )
    return { anvil, node, server, embedded, t, outsider, send, follow, holders, listed, storage }
  })

/** The team's deposit events in the outbox: [type, status, amount in cents], by amount. */
const depositEvents = (server: TestServer, storage: "sqlite" | "mongo", team: string) =>
  Effect.gen(function* () {
    const events: ReadonlyArray<Json> =
      storage === "sqlite"
        ? (yield* sqliteOf(server))
            .prepare("SELECT event FROM event_outbox WHERE team_nanoid = ?")
            .all(team)
            .map((row) => JSON.parse(String(row.event)))
        : yield* Effect.promise(async () =>
            (await (server as Json).db.collection("event_outbox").find({ "event.team_nanoid": team }).toArray()).map(
              (doc: Json) => doc.event
            )
          )
    return (
      events
        .filter((event) => event.event_type === "deposit.received" || event.event_type === "token.transfer")
        // Each follows its kind's payload schema.
        .map((event) => ({
          type: event.event_type,
          data: Schema.decodeUnknownSync(
            event.event_type === "token.transfer" ? TokenTransferEventPayload : DepositEventPayload
          )(event.data) as Json
        }))
        .map(({ type, data }) => [type, data.status, data.source_amount_cents ?? data.amount_cents])
        .sort((a, b) => Number(a[2]) - Number(b[2]) || String(a[1]).localeCompare(String(b[1])))
    )
  }).pipe(Effect.scoped)

describe("deposits", () => {
  for (const storage of ["sqlite", "mongo"] as const) {
    it.live(
      `${storage}: USDC from an outside wallet is announced once, and listed`,
      () =>
        Effect.gen(function* () {
          const s = yield* setUp(storage)
          // An endpoint of the team subscribed to deposits.
          const receiver = yield* startReceiver()
          const hook = yield* call(s.server, "POST", "/v2/webhooks", {
            token: s.t.token,
            body: { team_nanoid: s.t.team, url: receiver.url, events: ["deposit.received"], name: "deposits" }
          })
          assert.strictEqual(hook.status, 200, JSON.stringify(hook.body))
          const hash = yield* s.send(12_340_000n)
          const first = yield* s.follow()
          assert.isTrue(first.followed)
          // Delivered, signed (verified by the standardwebhooks library), with the chain facts.
          const delivered = (yield* receiver.waitFor(2)).map((r) =>
            new Webhook(hook.body.data.secret).verify(r.body, receiver.headersOf(r))
          ) as Array<Json>
          const transferEvent = delivered.find((e) => e.data.transaction_hash === hash)
          Schema.decodeUnknownSync(DepositEventPayload)(transferEvent?.data)
          assert.deepStrictEqual(
            [
              transferEvent?.event_type,
              transferEvent?.data.status,
              transferEvent?.data.source_amount_cents,
              transferEvent?.data.from
            ],
            ["deposit.received", "complete", 1_234, s.outsider.address]
          )
          // Announced within two blocks of its confirmation (CHAIN_CONFIRMATIONS 1: its own block is confirmation).
          assert.isAtLeast(transferEvent?.data.confirmations, 1)
          assert.isAtMost(transferEvent?.data.confirmations, 3)
          // The funding mint (from the zero address) and the transfer, each once.
          assert.deepStrictEqual(yield* depositEvents(s.server, storage, s.t.team), [
            ["deposit.received", "complete", 1_234],
            ["deposit.received", "complete", 100_000]
          ])
          const items = yield* s.listed
          assert.deepStrictEqual(
            items.map((item) => [item.amount_cents, item.state, item.kind, item.from]),
            [
              [1_234, "confirmed", "received", s.outsider.address],
              [100_000, "confirmed", "received", "0x0000000000000000000000000000000000000000"]
            ]
          )
          assert.strictEqual(items[0].transaction, hash)
          assert.isAtLeast(items[0].confirmations, 1)
          // Read again from the first block (the cursor moved back): nothing is announced twice.
          yield* DepositLedger.use((ledger) =>
            ledger.advance("deposits", s.holders.held ?? (0 as FencingToken), { block: -1, hash: "" }, [])
          ).pipe(Effect.provide(s.server.context))
          const again = yield* s.follow()
          assert.isAtLeast(again.blocks, 2)
          assert.strictEqual((yield* depositEvents(s.server, storage, s.t.team)).length, 2)
          // The fan-out has nothing left (the read again added no event): each deposit delivered once.
          yield* eventually(
            Effect.map(
              EventOutbox.use((outbox) => outbox.backlog).pipe(Effect.provide(s.server.context)),
              (backlog) => backlog.count === 0
            ),
            { what: "an empty outbox" }
          )
          assert.strictEqual(receiver.received.length, 2, "each deposit delivered once")
          // While this follower holds the lease, another process's follower does nothing.
          assert.isFalse((yield* s.follow({ another: true })).followed)
          // A token that does not verify is refused.
          const stranger = yield* call(s.server, "GET", `/v2/deposits?team_nanoid=${s.t.team}`, {
            token: s.t.token.slice(0, -2)
          })
          assert.strictEqual(stranger.status, 401)
        }).pipe(Effect.scoped),
      120_000
    )
  }

  for (const storage of ["sqlite", "mongo"] as const) {
    it.live(
      `${storage}: a reorg before confirmation drops the deposit without an event; one after it withdraws it with one`,
      () =>
        Effect.gen(function* () {
          const s = yield* setUp(storage)
          yield* s.follow({ confirmations: 2 })
          yield* Effect.promise(() => s.node.mine({ blocks: 1 }))
          yield* s.follow({ confirmations: 2 })
          const before = (yield* depositEvents(s.server, storage, s.t.team)).length

          // Read while one block deep, then reorganised away.
          const early = yield* Effect.promise(() => s.node.snapshot())
          yield* s.send(1_000_000n)
          yield* s.follow({ confirmations: 2 })
          assert.deepStrictEqual(
            (yield* s.listed).filter((item) => item.amount_cents === 100).map((item) => item.state),
            ["pending"]
          )
          yield* Effect.promise(() => s.node.revert({ id: early }))
          yield* Effect.promise(() => s.node.mine({ blocks: 3 }))
          yield* s.follow({ confirmations: 2 })
          assert.deepStrictEqual(
            (yield* s.listed).filter((item) => item.amount_cents === 100).map((item) => item.state),
            ["reorged"]
          )
          assert.strictEqual((yield* depositEvents(s.server, storage, s.t.team)).length, before)

          // Confirmed (two deep), announced, then reorganised away: withdrawn with one event.
          const late = yield* Effect.promise(() => s.node.snapshot())
          yield* s.send(2_000_000n)
          yield* Effect.promise(() => s.node.mine({ blocks: 1 }))
          yield* s.follow({ confirmations: 2 })
          yield* Effect.promise(() => s.node.revert({ id: late }))
          yield* Effect.promise(() => s.node.mine({ blocks: 3 }))
          yield* s.follow({ confirmations: 2 })
          yield* s.follow({ confirmations: 2 })
          const events = yield* depositEvents(s.server, storage, s.t.team)
          assert.deepStrictEqual(
            events.filter((event) => event[2] === 200),
            [
              ["deposit.received", "complete", 200],
              ["deposit.received", "reverted", 200]
            ]
          )
          assert.deepStrictEqual(
            (yield* s.listed).filter((item) => item.amount_cents === 200).map((item) => item.state),
            ["reorged"]
          )
        }).pipe(Effect.scoped),
      120_000
    )

    it.live(
      `${storage}: restarted 1,000 blocks behind, the follower catches up without a missed or doubled deposit`,
      () =>
        Effect.gen(function* () {
          const s = yield* setUp(storage)
          yield* s.follow()
          // The process stops (its follower gives the lease up); a new one continues from the stored cursor.
          yield* DepositLedger.use((ledger) => ledger.unfollow("deposits", s.holders.held ?? (0 as FencingToken))).pipe(
            Effect.provide(s.server.context)
          )
          s.holders.held = undefined
          for (let i = 1; i <= 5; i++) {
            yield* s.send(BigInt(i) * 10_000n)
            yield* Effect.promise(() => s.node.mine({ blocks: 200 }))
          }
          let passes = 0
          let behind = true
          while (behind && passes < 20) {
            const pass = yield* s.follow()
            assert.isTrue(pass.followed)
            passes++
            behind = (pass.cursor?.block ?? 0) < Number(yield* Effect.promise(() => s.node.getBlockNumber()))
          }
          yield* s.follow()
          const amounts = (yield* depositEvents(s.server, storage, s.t.team)).map((event) => event[2])
          assert.deepStrictEqual(amounts, [1, 2, 3, 4, 5, 100_000])
          assert.deepStrictEqual(
            (yield* s.listed).map((item) => item.state),
            Array.from({ length: 6 }, () => "confirmed")
          )
        }).pipe(Effect.scoped),
      120_000
    )
  }
})
