/**
 * Dependency outages over real HTTP (issue 14, defect 6; docs/decisions/0037): a stopped anvil, a hung node (a TCP
 * server that accepts and never answers), a killed jongodb and a SQLite file locked past the busy timeout make requests
 * answer 503 `SERVICE_UNAVAILABLE` with `Retry-After`, never 500 and never hanging; `/ready` names the dependency that
 * is down while `/health` stays 200; a PUT that sent nothing releases its claim, so the same signed request executes
 * once when the chain is back, and one whose transaction may be out keeps it.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { assert, describe, it } from "@effect/vitest"
import { persistAnvilState, startAnvil, startJongodb } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { eventually } from "@svc/adapters/test/Eventually"
import { ChainGateway } from "@svc/domain/chain"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { TeamRepository } from "@svc/domain/team"
import { Context, Effect, Exit, Layer, Redacted, Scope } from "effect"
import { type Hex, keccak256, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { startHangingProxy } from "../test/HangingProxy.ts"
import { type RpcProxy, startRpcProxy } from "../test/RpcProxy.ts"
import {
  addMember,
  type CallResult,
  call,
  countRows,
  seedTeam,
  signIn,
  sqliteOf,
  startMongoTestServer,
  startTestServerWith,
  type TestServer
} from "../test/TestServer.ts"

const chainId = 42161

/** A 503 in the error envelope that says when to come back. */
const assertUnavailable = (response: CallResult) => {
  assert.strictEqual(response.status, 503, JSON.stringify(response.body))
  assert.strictEqual(response.body.success, false)
  assert.strictEqual(response.body.error_code, "SERVICE_UNAVAILABLE")
  assert.isAbove(Number(response.headers.get("retry-after")), 0)
}

/** A fresh suite on the node at `rpcUrl` (calls bounded small) and a SQLite server paying through it. */
type ChainServer = Effect.Success<ReturnType<typeof serverOnChain>>

const serverOnChain = (rpcUrl: string) =>
  Effect.gen(function* () {
    const chain = yield* Layer.build(
      EmbeddedChain.layer({ rpcUrl, chainId, rpcTimeoutMillis: 2_000, rpcRetries: 0 })
    ).pipe(Effect.orDie)
    const server = yield* startTestServerWith({ chain: Layer.succeedContext(chain) })
    return { server, embedded: Context.get(chain, EmbeddedChain), gateway: Context.get(chain, ChainGateway) }
  })

/** A team with a paying admin whose account holds 1,000 USD, a payment to a member issued and signed. */
const signedPayment = (server: TestServer, embedded: EmbeddedChain["Service"], gateway: ChainGateway["Service"]) =>
  Effect.gen(function* () {
    const seeded = yield* seedTeam(server, ["team_admin", "team_employee"])
    const adminKey = generatePrivateKey()
    const admin = privateKeyToAccount(adminKey)
    yield* addMember(seeded.teamId, admin.address, "team_finance_admin", `${admin.address}@t.example`).pipe(
      Effect.provide(server.context)
    )
    const { account } = yield* gateway.createAccount(admin.address, keccak256(toHex(seeded.teamId))).pipe(Effect.orDie)
    yield* embedded.mint(account, 1_000n * 10n ** 6n).pipe(Effect.orDie)
    yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
      Effect.provide(server.context)
    )
    const token = yield* signIn(server, admin)
    const employee = seeded.members[1]!
    const body = {
      from: seeded.teamId,
      to: [{ to: employee.user, amount_cents: 2500, currency_symbol: "USD", invoice_description: "work" }],
      pay_now: true
    }
    const issued = yield* call(server, "POST", "/v2/payments", { token, body })
    assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
    const bundle = issued.body.data as TypedDataBundle
    const signature: Hex = yield* Effect.promise(() => admin.signTypedData(signableOf(bundle) as never))
    return { token, account, put: { ...body, signer: admin.address, typed_data: bundle.typed_data, signature } }
  })

/** Calls `path` until it answers `status` (the dependency is back). */
const untilStatus = (server: TestServer, path: string, status: number) =>
  eventually(
    Effect.map(call(server, "GET", path), (response) => (response.status === status ? response : undefined)),
    { what: `${path} answering ${status}`, every: "250 millis", timeout: "60 seconds" }
  )

/** A server that sends through `proxy` with a relayer key of its own, on the suite `direct` deployed on the run's node. */
const serverBehind = (proxy: RpcProxy, direct: ChainServer, settlementWaitMillis?: number) =>
  Effect.gen(function* () {
    const chain = yield* Layer.build(
      EmbeddedChain.layer({
        rpcUrl: proxy.url,
        chainId,
        suite: direct.embedded.suite,
        relayerKeys: [Redacted.make(generatePrivateKey())],
        rpcTimeoutMillis: 2_000,
        rpcRetries: 0
      })
    ).pipe(Effect.orDie)
    return yield* startTestServerWith({ chain: Layer.succeedContext(chain), limits: { settlementWaitMillis } })
  })

/** The state of a request's claim, as stored. */
const claimState = (server: TestServer, salt: string) =>
  Effect.scoped(
    Effect.map(sqliteOf(server), (db) => db.prepare("SELECT state FROM issued_requests WHERE salt = ?").get(salt))
  ).pipe(Effect.map((row) => row?.state))

describe("outages", () => {
  it.live(
    "chain stopped: PUT answers 503 with Retry-After and records nothing; restarted: the same request executes once",
    () =>
      Effect.gen(function* () {
        const dir = yield* Effect.acquireRelease(
          Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-outage-"))),
          (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
        )
        const file = join(dir, "chain.json")
        const first = yield* Scope.make()
        const anvil = yield* startAnvil({ stateFile: file }).pipe(Scope.provide(first))
        const persisted = yield* persistAnvilState({ anvil }).pipe(Scope.provide(first))
        const { server, embedded, gateway } = yield* serverOnChain(anvil.rpcUrl)
        const payment = yield* signedPayment(server, embedded, gateway)
        yield* persisted.save
        // The chain stops (its last state saved, as embedded mode keeps it).
        yield* Scope.close(first, Exit.void)

        const down = yield* call(server, "PUT", "/v2/payments", { token: payment.token, body: payment.put })
        assertUnavailable(down)
        assert.strictEqual(yield* countRows(server, "payments"), 0)
        const notReady = yield* call(server, "GET", "/ready")
        assertUnavailable(notReady)
        // (The relayer's monitors, failing meanwhile, may be named too.)
        assert.deepStrictEqual(
          [notReady.body.data.status, notReady.body.data.checks],
          ["not_ready", { database: "up", chain: "down", relayer: "down" }]
        )
        assert.strictEqual((yield* call(server, "GET", "/health")).status, 200)

        // A node that answers on the same port but lost the chain (started empty) is not ready: no contract code.
        const empty = yield* Scope.make()
        yield* startAnvil({ port: anvil.port }).pipe(Scope.provide(empty), Effect.orDie)
        const emptyChain = yield* call(server, "GET", "/ready")
        assert.strictEqual(emptyChain.status, 503, JSON.stringify(emptyChain.body))
        assert.strictEqual(emptyChain.body.data.checks.chain, "down")
        yield* Scope.close(empty, Exit.void)

        // The chain is back where it was: the claim was released, so the same signed request executes at once.
        yield* startAnvil({ port: anvil.port, stateFile: file }).pipe(
          Effect.flatMap((restarted) => persistAnvilState({ anvil: restarted })),
          Effect.orDie
        )
        const ready = yield* call(server, "GET", "/ready")
        assert.strictEqual(ready.status, 200, JSON.stringify(ready.body))
        // (A relayer monitor whose backoff has not ended yet may still be named.)
        const { relayers, workers: _workers, ...readiness } = ready.body.data
        assert.deepStrictEqual(readiness, { status: "ready", checks: { database: "up", chain: "up", relayer: "up" } })
        // Each relayer key's figures: its address, its gas, nothing in flight.
        assert.deepStrictEqual(
          relayers.map((key: { address: string }) => key.address),
          embedded.relayers
        )
        for (const relayer of relayers) {
          assert.isAbove(Number(relayer.balance_wei), 0)
          assert.deepStrictEqual([relayer.low, relayer.pending, relayer.oldest_pending_seconds], [false, 0, null])
        }
        const paid = yield* call(server, "PUT", "/v2/payments", { token: payment.token, body: payment.put })
        assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
        const replay = yield* call(server, "PUT", "/v2/payments", { token: payment.token, body: payment.put })
        assert.strictEqual(replay.status, 200)
        assert.strictEqual(replay.body.data.transaction, paid.body.data.transaction)
        assert.strictEqual(yield* countRows(server, "payments"), 1)
        assert.strictEqual(yield* gateway.balanceOf(payment.account).pipe(Effect.orDie), (1_000n - 25n) * 10n ** 6n)
      }).pipe(Effect.scoped),
    180_000
  )

  it.live(
    "a hung node (accepts, never answers) makes the PUT answer 503, and the claim is free again",
    () =>
      Effect.gen(function* () {
        const proxy = yield* startHangingProxy(inject("rpcUrl"))
        const { server, embedded, gateway } = yield* serverOnChain(proxy.url)
        const payment = yield* signedPayment(server, embedded, gateway)
        proxy.hang()
        assertUnavailable(yield* call(server, "PUT", "/v2/payments", { token: payment.token, body: payment.put }))
        assert.strictEqual(yield* countRows(server, "payments"), 0)
        const notReady = yield* call(server, "GET", "/ready")
        assert.strictEqual(notReady.status, 503)
        assert.strictEqual(notReady.body.data.checks.chain, "down")
        // Nothing was sent: a second attempt is not held by the first one's claim (no 409), it meets the outage again.
        assertUnavailable(yield* call(server, "PUT", "/v2/payments", { token: payment.token, body: payment.put }))
      }).pipe(Effect.scoped),
    180_000
  )

  it.live(
    "a send whose answer is lost (the transaction is out) answers 200 with its hash, never 503, and executes once",
    () =>
      Effect.gen(function* () {
        const proxy = yield* startRpcProxy(inject("rpcUrl"), "swallow")
        const direct = yield* serverOnChain(inject("rpcUrl"))
        const server = yield* serverBehind(proxy, direct)
        const payment = yield* signedPayment(server, direct.embedded, direct.gateway)
        // The send times out unanswered: its outcome unknown, the holder asks the chain, which settled it.
        const paid = yield* call(server, "PUT", "/v2/payments", { token: payment.token, body: payment.put })
        assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
        const replay = yield* call(server, "PUT", "/v2/payments", { token: payment.token, body: payment.put })
        assert.strictEqual(replay.body.data.transaction, paid.body.data.transaction)
        assert.strictEqual(yield* claimState(server, payment.put.typed_data.salt), "executed")
        assert.strictEqual(yield* countRows(server, "payments"), 1)
        assert.strictEqual(yield* direct.gateway.balanceOf(payment.account).pipe(Effect.orDie), 975n * 10n ** 6n)
      }).pipe(Effect.scoped),
    180_000
  )

  it.live(
    "the node goes away once it took the transaction: the PUT answers 202 with its hash, never 503; back, it is paid once",
    () =>
      Effect.gen(function* () {
        const proxy = yield* startRpcProxy(inject("rpcUrl"), "down")
        const direct = yield* serverOnChain(inject("rpcUrl"))
        const server = yield* serverBehind(proxy, direct, 3_000)
        const payment = yield* signedPayment(server, direct.embedded, direct.gateway)
        const sent = yield* call(server, "PUT", "/v2/payments", { token: payment.token, body: payment.put })
        assert.strictEqual(sent.status, 202, JSON.stringify(sent.body))
        const transaction = sent.body.data.transaction as string
        assert.match(transaction, /^0x[0-9a-f]{64}$/)
        // The claim stays while the chain cannot say what became of it: a replay answers the same hash.
        assert.strictEqual(yield* claimState(server, payment.put.typed_data.salt), "executing")
        const replay = yield* call(server, "PUT", "/v2/payments", { token: payment.token, body: payment.put })
        assert.deepStrictEqual([replay.status, replay.body.data.transaction], [202, transaction])

        proxy.up()
        const paid = yield* eventually(
          Effect.map(call(server, "PUT", "/v2/payments", { token: payment.token, body: payment.put }), (answer) =>
            answer.status === 200 ? answer : undefined
          ),
          { what: "the PUT's 200", every: "250 millis" }
        )
        assert.strictEqual(paid.body.data.transaction, transaction)
        assert.strictEqual(proxy.sent(), 1)
        assert.strictEqual(yield* countRows(server, "payments"), 1)
        assert.strictEqual(yield* direct.gateway.balanceOf(payment.account).pipe(Effect.orDie), 975n * 10n ** 6n)
      }).pipe(Effect.scoped),
    180_000
  )

  it.live("SQLite locked by another process past the busy timeout: a write answers 503, then serves", () =>
    Effect.gen(function* () {
      const dir = yield* Effect.acquireRelease(
        Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-busy-"))),
        (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
      )
      const filename = join(dir, "svc.db")
      const server = yield* startTestServerWith({ storage: { _tag: "sqlite", filename, busyTimeoutMillis: 100 } })
      const wallet = privateKeyToAccount(generatePrivateKey()).address
      const other = new DatabaseSync(filename)
      other.exec("BEGIN IMMEDIATE")
      assertUnavailable(yield* call(server, "GET", `/v2/auth/siwe?wallet=${wallet}`))
      // Readiness writes (and rolls back), so it sees what writes meet; a read alone answered while they failed.
      const notReady = yield* call(server, "GET", "/ready")
      assert.strictEqual(notReady.status, 503)
      assert.strictEqual(notReady.body.data.checks.database, "down")
      other.exec("COMMIT")
      other.close()
      assert.strictEqual((yield* call(server, "GET", `/v2/auth/siwe?wallet=${wallet}`)).status, 200)
      const ready = yield* call(server, "GET", "/ready")
      assert.strictEqual(ready.status, 200, JSON.stringify(ready.body))
      assert.strictEqual(ready.body.data.checks.database, "up")
    }).pipe(Effect.scoped)
  )

  it.live(
    "MongoDB killed: routes answer 503 with Retry-After, /ready names the database; restarted: served again",
    () =>
      Effect.gen(function* () {
        // A jongodb of this test's own: the run's shared one is never stopped.
        const first = yield* Scope.make()
        const mongo = yield* startJongodb().pipe(Scope.provide(first), Effect.orDie)
        yield* Effect.addFinalizer(() => Scope.close(first, Exit.void))
        // The driver waits for a primary longer than a request may take (30 s by default, an election's length:
        // decision 0096; 8 s here, so the workers' outage shows soon): requests answer 503 at their own bound.
        const server = yield* startMongoTestServer({
          storage: { _tag: "mongo", uri: mongo.uri, database: "outage", timeouts: { serverSelectionMillis: 8_000 } },
          limits: { requestTimeoutMillis: 2_000 }
        })
        const seeded = yield* seedTeam(server, ["team_admin"])
        const token = yield* signIn(server, seeded.members[0]!.account)
        assert.strictEqual((yield* call(server, "GET", `/v2/teams/${seeded.teamId}`, { token })).status, 200)

        yield* Scope.close(first, Exit.void)
        const started = Date.now()
        assertUnavailable(yield* call(server, "GET", `/v2/teams/${seeded.teamId}`, { token }))
        assertUnavailable(yield* call(server, "GET", `/v2/auth/siwe?wallet=${seeded.members[0]!.account.address}`))
        // Each within its request's bound, not the driver's.
        assert.isBelow(Date.now() - started, 2 * 2_000 + 3_000)
        const notReady = yield* call(server, "GET", "/ready")
        assertUnavailable(notReady)
        assert.strictEqual(notReady.body.data.status, "not_ready")
        assert.deepStrictEqual(notReady.body.data.checks, { database: "down", chain: "absent", relayer: "absent" })
        assert.strictEqual((yield* call(server, "GET", "/health")).status, 200)
        // The mail worker's next pass meets the outage: it backs off, and /ready names it.
        const namesMail = (response: CallResult) =>
          ((response.body.data.workers ?? []) as Array<{ worker: string }>).some((w) => w.worker === "mail worker")
        const named = yield* eventually(
          Effect.map(call(server, "GET", "/ready"), (response) => namesMail(response) && response),
          { what: "/ready naming the mail worker", every: "100 millis" }
        )
        const mail = named.body.data.workers.find((w: { worker: string }) => w.worker === "mail worker")
        assert.isAtLeast(mail.failures, 1)
        assert.match(mail.since, /^\d{4}-\d\d-\d\dT/)
        assert.notStrictEqual(mail.reason, "")

        // Started again on the same port (empty: jongodb keeps nothing), the server serves without a restart.
        yield* startJongodb({ port: mongo.port }).pipe(Effect.orDie)
        const ready = yield* untilStatus(server, "/ready", 200)
        assert.strictEqual(ready.body.data.status, "ready")
        assert.deepStrictEqual(ready.body.data.checks, { database: "up", chain: "absent", relayer: "absent" })
        const siwe = yield* call(server, "GET", `/v2/auth/siwe?wallet=${seeded.members[0]!.account.address}`)
        assert.strictEqual(siwe.status, 200, JSON.stringify(siwe.body))
      }).pipe(Effect.scoped),
    180_000
  )

  it.live("a relayer whose gas is below RELAYER_MIN_BALANCE_WEI reads as low: /ready answers 503 naming it", () =>
    Effect.gen(function* () {
      const rpcUrl = inject("rpcUrl")
      const chain = yield* Layer.build(
        // More than the faucet gives it (10^24 wei): the relayer is low from the start.
        EmbeddedChain.layer({ rpcUrl, chainId, relayer: { minBalance: 10n ** 30n } })
      ).pipe(Effect.orDie)
      const server = yield* startTestServerWith({ chain: Layer.succeedContext(chain) })
      const ready = yield* call(server, "GET", "/ready")
      assertUnavailable(ready)
      assert.deepStrictEqual(ready.body.data.checks, { database: "up", chain: "up", relayer: "low" })
      const [first, second] = ready.body.data.relayers
      assert.deepStrictEqual([first.address, second.address], Context.get(chain, EmbeddedChain).relayers)
      assert.deepStrictEqual([first.low, second.low], [true, true])
      // What the faucet gave the first key, less the suite's deployment.
      const balance = BigInt(first.balance_wei)
      assert.isTrue(balance > 10n ** 23n && balance < 10n ** 24n, String(balance))
    }).pipe(Effect.scoped)
  )
})
