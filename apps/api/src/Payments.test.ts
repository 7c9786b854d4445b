/**
 * Payments end to end over real HTTP, on MongoDB (jongodb) and anvil: typed data issued, signed by viem and ethers
 * wallets, executed once through the chain, replayed, refused, queried; intents run by two runners; balances read.
 * The API's MongoDB adapter is exercised here; the same executions on SQLite, the default, close the file.
 */
import { assert, layer } from "@effect/vitest"
import { EmbeddedChain, ViemChainGateway } from "@svc/adapters/evm"
import { eventually } from "@svc/adapters/test/Eventually"
import { ChainGateway, paymentsRequestOf } from "@svc/domain/chain"
import { IssuedRequestStore, type PaymentsTypedDataMessage, signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { MembershipRepository, Permissions } from "@svc/domain/membership"
import { IntentRunner, PaymentLedger, Recovery } from "@svc/domain/payment"
import { TeamRepository } from "@svc/domain/team"
import { Context, Duration, Effect, Layer, Redacted } from "effect"
import { Wallet } from "ethers"
import { Webhook } from "standardwebhooks"
import { type Address, createPublicClient, type Hex, http, keccak256, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { arbitrum } from "viem/chains"
import { inject } from "vitest"
import {
  addMember,
  type CallResult,
  call,
  type MongoTestServer,
  placeholderSignature,
  placeholderTypedData,
  type SeededMember,
  seedTeam,
  signIn,
  startMongoTestServer,
  startTestServerWith
} from "../test/TestServer.ts"
import { startReceiver } from "../test/WebhookReceiver.ts"

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

const rpcUrl = inject("rpcUrl")
const chainId = 42161
const units = (cents: number) => BigInt(cents) * 10n ** 4n

/** Asks `call` again until it answers `status`: that answer. */
const untilStatus = <E, R>(ask: Effect.Effect<CallResult, E, R>, status: number) =>
  eventually(
    Effect.map(ask, (answer) => answer.status === status && answer),
    { what: `an answer ${status}`, every: "100 millis" }
  )

/** Once `payAt` (unix seconds) has passed, with a margin for the chain's whole-second block times. */
const whenDue = (payAt: number) =>
  eventually(() => Date.now() >= payAt * 1000 + 1_500, { what: `pay_at_time ${payAt} past`, timeout: "60 seconds" })

/** A fresh suite on the shared anvil, its gateway, and a server on it. */
class Fixture extends Context.Service<
  Fixture,
  {
    readonly server: MongoTestServer
    readonly embedded: EmbeddedChain["Service"]
    readonly gateway: ChainGateway["Service"]
    readonly chainLayer: Layer.Layer<ChainGateway>
  }
>()("test/payments/Fixture") {}

const FixtureLayer = Layer.effect(
  Fixture,
  Effect.gen(function* () {
    const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl, chainId })).pipe(Effect.orDie)
    const chainLayer = Layer.succeedContext(chainContext)
    const server = yield* startMongoTestServer({ chain: chainLayer })
    return {
      server,
      embedded: Context.get(chainContext, EmbeddedChain),
      gateway: Context.get(chainContext, ChainGateway),
      chainLayer: Layer.succeed(ChainGateway, Context.get(chainContext, ChainGateway))
    }
  })
)

const publicClient = createPublicClient({ chain: arbitrum, transport: http(rpcUrl), pollingInterval: 10 })

/** A team with an admin, two payable members and a viewer; its svc account deployed and funded with `cents`. */
const fundedTeam = (
  cents: number,
  options: { readonly adminKey?: Hex; readonly adminRole?: "team_finance_admin" | "team_admin" } = {}
) =>
  Effect.gen(function* () {
    const { server, embedded, gateway } = yield* Fixture
    const seeded = yield* seedTeam(server, ["team_admin", "team_employee", "team_contractor", "team_viewer"])
    const adminKey = options.adminKey ?? generatePrivateKey()
    const admin = privateKeyToAccount(adminKey)
    const adminUser = yield* addMember(
      seeded.teamId,
      admin.address,
      options.adminRole ?? "team_finance_admin",
      `${admin.address}@t.example`
    ).pipe(Effect.provide(server.context))
    const { account } = yield* gateway.createAccount(admin.address, keccak256(toHex(seeded.teamId))).pipe(Effect.orDie)
    if (cents > 0) yield* embedded.mint(account, units(cents)).pipe(Effect.orDie)
    yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
      Effect.provide(server.context)
    )
    const [teamAdmin, employee, contractor, viewer] = seeded.members as [
      SeededMember,
      SeededMember,
      SeededMember,
      SeededMember
    ]
    const token = yield* signIn(server, admin)
    return { team: seeded.teamId, account, admin, adminKey, adminUser, teamAdmin, employee, contractor, viewer, token }
  })

const balanceOf = (address: Address) =>
  Effect.gen(function* () {
    const { gateway } = yield* Fixture
    return yield* Effect.orDie(gateway.balanceOf(address))
  })

const userAccount = (member: { readonly user: string; readonly account: { readonly address: Address } }) =>
  Effect.gen(function* () {
    const { gateway } = yield* Fixture
    return yield* Effect.orDie(gateway.accountAddress(member.account.address, keccak256(toHex(member.user))))
  })

const entry = (to: string, amount_cents: number, invoice_description = "work") => ({
  to,
  amount_cents,
  currency_symbol: "USD",
  invoice_description
})

/** POST /v2/payments, asserting 200; answers the bundle. */
const issue = (token: string, body: Record<string, unknown>) =>
  Effect.gen(function* () {
    const { server } = yield* Fixture
    const response = yield* call(server, "POST", "/v2/payments", { token, body })
    assert.strictEqual(response.status, 200, JSON.stringify(response.body))
    return response.body.data as TypedDataBundle
  })

const signViem = (key: Hex, bundle: TypedDataBundle) =>
  Effect.promise(() => privateKeyToAccount(key).signTypedData(signableOf(bundle) as never))

const putBody = (body: Record<string, unknown>, bundle: TypedDataBundle, signer: Address, signature: Hex) => ({
  ...body,
  signer,
  typed_data: bundle.typed_data,
  signature
})

/** Registers an intent of `cents` to the team's employee, due `inSeconds` from now, signed by the team's payer. */
const registerIntent = (
  t: {
    readonly team: string
    readonly token: string
    readonly admin: { readonly address: Address }
    readonly adminKey: Hex
    readonly employee: { readonly user: string }
  },
  cents: number,
  inSeconds: number
) =>
  Effect.gen(function* () {
    const { server } = yield* Fixture
    const payAt = Math.floor(Date.now() / 1000) + inSeconds
    const body = { from: t.team, to: [entry(t.employee.user, cents)], pay_now: false }
    const bundle = yield* issue(t.token, { ...body, pay_at_time: payAt })
    const put = yield* call(server, "PUT", "/v2/payments", {
      token: t.token,
      body: putBody(body, bundle, t.admin.address, yield* signViem(t.adminKey, bundle))
    })
    assert.strictEqual(put.status, 200, JSON.stringify(put.body))
    return payAt
  })

/** The same signature with the high `s` (n - s) and the other `v`: valid for ecrecover, refused by EIP-2. */
const malleableTwin = (signature: Hex): Hex => {
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
  const s = BigInt(`0x${signature.slice(66, 130)}`)
  const v = Number.parseInt(signature.slice(130, 132), 16)
  return `${signature.slice(0, 66)}${(n - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}` as Hex
}

// Real I/O with sleeps and polling: no TestClock (excludeTestServices), so `it.effect` runs on the live clock.
layer(FixtureLayer, { timeout: 180_000, excludeTestServices: true })(
  "payments over HTTP on jongodb and anvil",
  (it) => {
    it.effect(
      "a batch signed by a viem account executes once: receipt on chain, balances moved exactly, replay answers the same",
      () =>
        Effect.gen(function* () {
          const { server } = yield* Fixture
          const t = yield* fundedTeam(1_000_00)
          const employeeAccount = yield* userAccount(t.employee)
          const contractorAccount = yield* userAccount(t.contractor)
          const body = {
            from: t.team,
            to: [entry(t.employee.user, 2500), entry(t.contractor.user, 1000, "design")],
            pay_now: true
          }
          // An endpoint of the team subscribed to the payment events (an admin registers it).
          const receiver = yield* startReceiver()
          const teamAdmin = yield* signIn(server, t.teamAdmin.account)
          const hook = yield* call(server, "POST", "/v2/webhooks", {
            token: teamAdmin,
            body: {
              team_nanoid: t.team,
              url: receiver.url,
              events: ["payment.group.created", "payment.sent", "payment.failed"],
              name: "payments"
            }
          })
          assert.strictEqual(hook.status, 200, JSON.stringify(hook.body))
          const bundle = yield* issue(t.token, body)
          assert.strictEqual(bundle.primary_type, "CreatePaymentsForwardRequest")
          const signature = yield* signViem(t.adminKey, bundle)
          const put = yield* call(server, "PUT", "/v2/payments", {
            token: t.token,
            body: putBody(body, bundle, t.admin.address, signature)
          })
          assert.strictEqual(put.status, 200, JSON.stringify(put.body))
          const transaction = put.body.data.transaction as Hex
          assert.strictEqual(put.body.data.payments.length, 2)
          const receipt = yield* Effect.promise(() => publicClient.getTransactionReceipt({ hash: transaction }))
          assert.strictEqual(receipt.status, "success")
          assert.strictEqual(yield* balanceOf(t.account), units(1_000_00 - 3500))
          assert.strictEqual(yield* balanceOf(employeeAccount), units(2500))
          assert.strictEqual(yield* balanceOf(contractorAccount), units(1000))
          // The team's member list names the same accounts the money went to.
          const members = yield* call(server, "GET", `/v2/teams/${t.team}/users`, { token: t.token })
          const accountOf = new Map(
            (members.body.data.users as Array<Json>).map((u) => [u.nanoid, String(u.svc_account).toLowerCase()])
          )
          assert.strictEqual(accountOf.get(t.employee.user), employeeAccount.toLowerCase())
          assert.strictEqual(accountOf.get(t.contractor.user), contractorAccount.toLowerCase())

          const replay = yield* call(server, "PUT", "/v2/payments", {
            token: t.token,
            body: putBody(body, bundle, t.admin.address, signature)
          })
          assert.strictEqual(replay.status, 200)
          assert.strictEqual(replay.body.data.transaction, transaction)
          assert.strictEqual(yield* balanceOf(t.account), units(1_000_00 - 3500))
          // The malleable twin of the signature (high s, other v) is refused after execution as before it.
          const twin = yield* call(server, "PUT", "/v2/payments", {
            token: t.token,
            body: putBody(body, bundle, t.admin.address, malleableTwin(signature))
          })
          assert.strictEqual(twin.status, 400, JSON.stringify(twin.body))
          assert.strictEqual(twin.body.error_code, "INVALID_SIGNATURE")

          const query = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}&state=complete`, {
            token: t.token
          })
          assert.strictEqual(query.status, 200)
          assert.isUndefined(query.body.success)
          const items = query.body.data.items as Array<Json>
          assert.strictEqual(items.length, 2)
          for (const item of items) {
            assert.strictEqual(item.payment.state, "complete")
            assert.strictEqual(item.payment.process_transaction, transaction)
            assert.strictEqual(item.payer.nanoid, t.adminUser)
          }
          assert.deepStrictEqual(
            items.map((i) => i.recipient.nanoid).sort(),
            [t.employee.user, t.contractor.user].sort()
          )
          assert.deepStrictEqual(items.map((i) => i.invoice.amount_cents).sort(), [1000, 2500])

          const events = yield* Effect.promise(() =>
            server.db.collection("event_outbox").find({ "event.team_nanoid": t.team }).toArray()
          )
          assert.deepStrictEqual(events.map((e) => e.event.event_type).sort(), [
            "payment.group.created",
            "payment.sent",
            "payment.sent"
          ])
          // Numbered in the team's sequence as they were recorded.
          assert.deepStrictEqual(events.map((e) => e.event.sequence).sort(), [1, 2, 3])

          // Every event reached the endpoint, signed (verified by the standardwebhooks library), with the chain facts.
          const delivered = (yield* receiver.waitFor(3)).map((r) =>
            new Webhook(hook.body.data.secret).verify(r.body, receiver.headersOf(r))
          ) as Array<Json>
          assert.deepStrictEqual(delivered.map((e) => e.event_type).sort(), [
            "payment.group.created",
            "payment.sent",
            "payment.sent"
          ])
          assert.deepStrictEqual(delivered.map((e) => e.sequence).sort(), [1, 2, 3])
          for (const e of delivered) {
            assert.deepStrictEqual(e.data.chain, {
              network: "arbitrum",
              chain_id: chainId,
              transaction_hash: transaction,
              block_number: Number(receipt.blockNumber)
            })
          }
          const group = delivered.find((e) => e.event_type === "payment.group.created")
          assert.deepStrictEqual(group.data.payments.map((p: Json) => p.amount_cents).sort(), [1000, 2500])

          const balance = yield* call(server, "GET", `/v2/balance?nanoid=${t.team}`, { token: t.token })
          assert.strictEqual(balance.status, 200)
          assert.strictEqual(balance.body.data.svc_account_address.toLowerCase(), t.account.toLowerCase())
          assert.deepStrictEqual(balance.body.data.balances, [{ currency: "USD", balance_cents: 1_000_00 - 3500 }])
          // A team that holds money cannot be deleted: the money would have no team to leave from.
          const ownerToken = yield* signIn(server, t.teamAdmin.account)
          const deleted = yield* call(server, "DELETE", `/v2/teams/${t.team}`, { token: ownerToken })
          assert.strictEqual(deleted.status, 409, JSON.stringify(deleted.body))
          assert.strictEqual(deleted.body.error_code, "TEAM_NOT_EMPTY")
          assert.strictEqual((yield* call(server, "GET", `/v2/teams/${t.team}`, { token: t.token })).status, 200)
        })
    )

    it.effect("a batch signed by an ethers wallet executes", () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture
        const key = generatePrivateKey()
        const t = yield* fundedTeam(500_00, { adminKey: key })
        const body = { from: t.team, to: [entry(t.employee.user, 1234)], pay_now: true }
        const bundle = yield* issue(t.token, body)
        const wallet = new Wallet(key)
        const signature = (yield* Effect.promise(() =>
          wallet.signTypedData(
            bundle.domain,
            JSON.parse(JSON.stringify(bundle.types)),
            JSON.parse(JSON.stringify(bundle.typed_data))
          )
        )) as Hex
        const put = yield* call(server, "PUT", "/v2/payments", {
          token: t.token,
          body: putBody(body, bundle, wallet.address as Address, signature)
        })
        assert.strictEqual(put.status, 200, JSON.stringify(put.body))
        assert.strictEqual(yield* balanceOf(t.account), units(500_00 - 1234))
        assert.strictEqual(yield* balanceOf(yield* userAccount(t.employee)), units(1234))
      })
    )

    it.effect(
      "refusals move nothing: expired, foreign signer, tampered amount or recipient, insufficient balance",
      () =>
        Effect.gen(function* () {
          const { server } = yield* Fixture
          const t = yield* fundedTeam(100_00)
          const body = { from: t.team, to: [entry(t.employee.user, 2500)], pay_now: true }
          const put = (
            bundle: TypedDataBundle,
            signer: Address,
            signature: Hex,
            override: Record<string, unknown> = {}
          ) =>
            call(server, "PUT", "/v2/payments", {
              token: t.token,
              body: { ...putBody(body, bundle, signer, signature), ...override }
            })

          // Expired: the issued record's expiry has passed (moved back in the database, as time would).
          const expiring = yield* issue(t.token, body)
          const past = String(Math.floor(Date.now() / 1000) - 5)
          yield* Effect.promise(() =>
            server.db
              .collection("issued_typed_data")
              .updateOne(
                { _id: expiring.typed_data.salt as never },
                { $set: { "record.bundle.typed_data.expires": past } }
              )
          )
          const expired = { ...expiring, typed_data: { ...expiring.typed_data, expires: past } } as TypedDataBundle
          const expiredPut = yield* put(expired, t.admin.address, yield* signViem(t.adminKey, expired))
          assert.strictEqual(expiredPut.status, 410, JSON.stringify(expiredPut.body))
          assert.strictEqual(expiredPut.body.error_code, "EXPIRED_TYPED_DATA")

          // A wallet that is a member but not an admin of the team signs.
          const bundle = yield* issue(t.token, body)
          const viewerKey = generatePrivateKey()
          const foreign = yield* put(bundle, t.viewer.account.address, yield* signViem(viewerKey, bundle))
          assert.strictEqual(foreign.status, 403)
          assert.strictEqual(foreign.body.error_code, "INSUFFICIENT_PERMISSIONS")
          const stranger = privateKeyToAccount(generatePrivateKey())
          const strangerPut = yield* put(
            bundle,
            stranger.address,
            yield* Effect.promise(() => stranger.signTypedData(signableOf(bundle) as never))
          )
          assert.strictEqual(strangerPut.status, 403)

          // Tampered amount, tampered recipient: the client's copy differs from what was issued.
          const signature = yield* signViem(t.adminKey, bundle)
          const payments = (bundle.typed_data as Json).data.payments
          const tamperedAmount = {
            ...bundle,
            typed_data: { ...bundle.typed_data, data: { payments: [{ ...payments[0], amount: "990000000" }] } }
          } as TypedDataBundle
          const amountPut = yield* put(tamperedAmount, t.admin.address, yield* signViem(t.adminKey, tamperedAmount))
          assert.strictEqual(amountPut.status, 400)
          assert.strictEqual(amountPut.body.error_code, "TYPED_DATA_MISMATCH")
          const tamperedRecipient = {
            ...bundle,
            typed_data: {
              ...bundle.typed_data,
              data: { payments: [{ ...payments[0], recipient: stranger.address }] }
            }
          } as TypedDataBundle
          const recipientPut = yield* put(
            tamperedRecipient,
            t.admin.address,
            yield* signViem(t.adminKey, tamperedRecipient)
          )
          assert.strictEqual(recipientPut.status, 400)
          const bodyPut = yield* put(bundle, t.admin.address, signature, {
            to: [entry(t.contractor.user, 2500)]
          })
          assert.strictEqual(bodyPut.status, 400)
          assert.strictEqual(bodyPut.body.error_code, "TYPED_DATA_MISMATCH")
          // A signature of other data.
          const badSignature = yield* put(bundle, t.admin.address, yield* signViem(t.adminKey, expired))
          assert.strictEqual(badSignature.status, 400)
          assert.strictEqual(badSignature.body.error_code, "INVALID_SIGNATURE")

          // Insufficient balance: a clear error, no payment recorded, and the request stays retryable.
          const big = { from: t.team, to: [entry(t.employee.user, 200_00)], pay_now: true }
          const bigBundle = yield* issue(t.token, big)
          const bigPut = yield* call(server, "PUT", "/v2/payments", {
            token: t.token,
            body: putBody(big, bigBundle, t.admin.address, yield* signViem(t.adminKey, bigBundle))
          })
          assert.strictEqual(bigPut.status, 409, JSON.stringify(bigPut.body))
          assert.strictEqual(bigPut.body.error_code, "INSUFFICIENT_BALANCE")

          assert.strictEqual(yield* balanceOf(t.account), units(100_00))
          assert.strictEqual(yield* balanceOf(yield* userAccount(t.employee)), 0n)
          const stored = yield* Effect.promise(() =>
            server.db.collection("payments").countDocuments({ team_nanoid: t.team })
          )
          assert.strictEqual(stored, 0)
          const events = yield* Effect.promise(() =>
            server.db.collection("event_outbox").countDocuments({ "event.team_nanoid": t.team })
          )
          assert.strictEqual(events, 0)

          // The original request still executes once it is signed correctly.
          const ok = yield* put(bundle, t.admin.address, signature)
          assert.strictEqual(ok.status, 200, JSON.stringify(ok.body))
          assert.strictEqual(yield* balanceOf(t.account), units(100_00 - 2500))
        })
    )

    it.effect("two API processes on one database receiving the same PUT at once: one transfer, one answer", () =>
      Effect.gen(function* () {
        const { server, embedded } = yield* Fixture
        const t = yield* fundedTeam(100_00)
        // The second process has its own relayer key (relayer nonces are per process, decision 0006).
        const relayerKey = generatePrivateKey()
        yield* embedded.setEtherBalance(privateKeyToAccount(relayerKey).address, 10n ** 21n).pipe(Effect.orDie)
        const second = yield* startMongoTestServer({
          storage: server.storage,
          jwtSecret: server.jwtSecret,
          chain: ViemChainGateway.layer({
            rpcUrl: Redacted.make(rpcUrl),
            chainId,
            relayerKeys: [Redacted.make(relayerKey)],
            addresses: embedded.suite,
            pollingInterval: 10
          }).pipe(Layer.orDie)
        })
        const body = { from: t.team, to: [entry(t.employee.user, 4200)], pay_now: true }
        const bundle = yield* issue(t.token, body)
        const request = putBody(body, bundle, t.admin.address, yield* signViem(t.adminKey, bundle))
        const [a, b] = yield* Effect.all(
          [
            call(server, "PUT", "/v2/payments", { token: t.token, body: request }),
            call(second, "PUT", "/v2/payments", { token: t.token, body: request })
          ],
          { concurrency: 2 }
        )
        // One executes; the other answers its result, or 202 with its transaction while that is not recorded yet
        // (decision 0061). Either way the same transaction, and the same PUT then answers 200 with it.
        for (const answer of [a, b]) assert.include([200, 202], answer.status, JSON.stringify(answer.body))
        assert.strictEqual(a.body.data.transaction, b.body.data.transaction)
        const again = yield* untilStatus(call(second, "PUT", "/v2/payments", { token: t.token, body: request }), 200)
        assert.deepStrictEqual([again.status, again.body.data.transaction], [200, a.body.data.transaction])
        assert.strictEqual(yield* balanceOf(t.account), units(100_00 - 4200))
        assert.strictEqual(yield* balanceOf(yield* userAccount(t.employee)), units(4200))
      })
    )

    it.effect(
      "a claim left by a dead process: awaited while its lease lives, taken over after, reconciled if spent",
      () =>
        Effect.gen(function* () {
          const { server, gateway } = yield* Fixture
          const t = yield* fundedTeam(100_00)
          const issued = server.db.collection("issued_typed_data")
          const prepare = (cents: number) =>
            Effect.gen(function* () {
              const body = { from: t.team, to: [entry(t.employee.user, cents)], pay_now: true }
              const bundle = yield* issue(t.token, body)
              const signature = yield* signViem(t.adminKey, bundle)
              return { bundle, signature, request: putBody(body, bundle, t.admin.address, signature) }
            })
          const put = (request: unknown) => call(server, "PUT", "/v2/payments", { token: t.token, body: request })
          // A claim as a process makes it: its signature kept with it (recovery sends it again with it).
          const claimAs = (request: { bundle: TypedDataBundle; signature: string }, leaseUntil: number) =>
            Effect.promise(() =>
              issued.updateOne(
                { _id: request.bundle.typed_data.salt as never },
                {
                  $set: {
                    state: "executing",
                    executedAt: 1,
                    lease_until: leaseUntil,
                    lease_token: 1,
                    signature: request.signature
                  }
                }
              )
            )

          // A live claim: the request waits for the claimer's result and answers it.
          const waiting = yield* prepare(100)
          yield* claimAs(waiting, Date.now() + 60_000)
          const finish = Effect.promise(() =>
            issued.updateOne(
              { _id: waiting.bundle.typed_data.salt as never },
              { $set: { state: "executed", result: { transaction: "0xfeed", payments: [] } } }
            )
          ).pipe(Effect.delay(Duration.millis(400)))
          const [answer] = yield* Effect.all([put(waiting.request), finish], { concurrency: 2 })
          assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
          assert.strictEqual(answer.body.data.transaction, "0xfeed")

          // An abandoned claim whose transaction never went out: taken over and executed once.
          const abandoned = yield* prepare(300)
          yield* claimAs(abandoned, Date.now() - 1)
          const takenOver = yield* put(abandoned.request)
          assert.strictEqual(takenOver.status, 200, JSON.stringify(takenOver.body))
          assert.strictEqual(yield* balanceOf(t.account), units(100_00 - 300))

          // An abandoned claim whose transaction went through: reconciled from the chain's record of it (payments,
          // result and events written with that transaction); nothing moves again.
          const spent = yield* prepare(500)
          const onChain = yield* gateway
            .executePayments({
              request: paymentsRequestOf(spent.bundle.typed_data as PaymentsTypedDataMessage),
              signature: spent.signature
            })
            .pipe(Effect.orDie)
          yield* claimAs(spent, Date.now() - 1)
          const reconciled = yield* put(spent.request)
          assert.strictEqual(reconciled.status, 200, JSON.stringify(reconciled.body))
          assert.strictEqual(reconciled.body.data.transaction, onChain.transactionHash)
          assert.deepStrictEqual(
            reconciled.body.data.payments.map((p: Json) => p.id),
            [(spent.bundle.typed_data as Json).data.payments[0].id]
          )
          assert.strictEqual(yield* balanceOf(t.account), units(100_00 - 300 - 500))
          const recorded = yield* Effect.promise(() =>
            server.db.collection("payments").find({ salt: spent.bundle.typed_data.salt }).toArray()
          )
          assert.strictEqual(recorded.length, 1)
          assert.strictEqual(recorded[0]?.state, "complete")
          assert.strictEqual(recorded[0]?.amount_cents, 500)
          assert.strictEqual(recorded[0]?.creation_transaction, onChain.transactionHash)
          assert.strictEqual(recorded[0]?.process_transaction, onChain.transactionHash)
          const events = yield* Effect.promise(() =>
            server.db
              .collection("event_outbox")
              .find({ "event.data.nanoid": { $in: [recorded[0]?.group_nanoid, recorded[0]?.nanoid] } })
              .toArray()
          )
          assert.deepStrictEqual(events.map((e) => e.event.event_type).sort(), [
            "payment.group.created",
            "payment.sent"
          ])
          const again = yield* put(spent.request)
          assert.strictEqual(again.status, 200, JSON.stringify(again.body))
          assert.strictEqual(again.body.data.transaction, onChain.transactionHash)
          assert.strictEqual(yield* balanceOf(t.account), units(100_00 - 300 - 500))
        })
    )

    it.effect(
      "a salt already spent when we send (SaltReplayed): recorded from the chain if it was this request, else 409",
      () =>
        Effect.gen(function* () {
          const { server, gateway } = yield* Fixture
          const t = yield* fundedTeam(100_00)
          const prepare = (cents: number) =>
            Effect.gen(function* () {
              const body = { from: t.team, to: [entry(t.employee.user, cents)], pay_now: true }
              const bundle = yield* issue(t.token, body)
              const signature = yield* signViem(t.adminKey, bundle)
              return { bundle, signature, request: putBody(body, bundle, t.admin.address, signature) }
            })
          const put = (request: unknown) => call(server, "PUT", "/v2/payments", { token: t.token, body: request })
          const recordedOf = (salt: string) =>
            Effect.promise(() => server.db.collection("payments").find({ salt }).toArray())

          // An earlier copy of this very request went through (as a relayer retry's would): our send is refused
          // with SaltReplayed, and the request answers and records what that copy settled.
          const copied = yield* prepare(700)
          const onChain = yield* gateway
            .executePayments({
              request: paymentsRequestOf(copied.bundle.typed_data as PaymentsTypedDataMessage),
              signature: copied.signature
            })
            .pipe(Effect.orDie)
          const answered = yield* put(copied.request)
          assert.strictEqual(answered.status, 200, JSON.stringify(answered.body))
          assert.strictEqual(answered.body.data.transaction, onChain.transactionHash)
          const recorded = yield* recordedOf(copied.bundle.typed_data.salt)
          assert.strictEqual(recorded.length, 1)
          assert.strictEqual(recorded[0]?.process_transaction, onChain.transactionHash)
          assert.strictEqual(yield* balanceOf(t.account), units(100_00 - 700))

          // The wallet signed other payments under the same salt and they executed: nothing of ours is recorded.
          const other = yield* prepare(800)
          const message = other.bundle.typed_data as Json
          const forged = {
            ...other.bundle,
            typed_data: {
              ...message,
              data: { payments: [{ ...message.data.payments[0], amount: String(units(100)) }] }
            }
          } as TypedDataBundle
          yield* gateway
            .executePayments({
              request: paymentsRequestOf(forged.typed_data as PaymentsTypedDataMessage),
              signature: yield* signViem(t.adminKey, forged)
            })
            .pipe(Effect.orDie)
          const refused = yield* put(other.request)
          assert.strictEqual(refused.status, 409, JSON.stringify(refused.body))
          assert.strictEqual(refused.body.error_code, "ALREADY_EXECUTED")
          assert.deepStrictEqual(yield* recordedOf(other.bundle.typed_data.salt), [])
          assert.strictEqual(yield* balanceOf(t.account), units(100_00 - 700 - 100))
        })
    )

    it.effect("an intent executes once when due, by one of two runners, and not before", () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture
        const t = yield* fundedTeam(100_00)
        const payAt = yield* registerIntent(t, 700, 4)
        const intents = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}&state=intent`, {
          token: t.token
        })
        assert.strictEqual(intents.body.data.items.length, 1)
        assert.strictEqual(yield* balanceOf(t.account), units(100_00))

        const early = yield* IntentRunner.runDueIntents().pipe(Effect.provide(server.context))
        assert.deepStrictEqual(
          early.filter((r) => r.payment.team_nanoid === t.team),
          []
        )
        assert.strictEqual(yield* balanceOf(t.account), units(100_00))

        yield* whenDue(payAt)
        const [a, b] = yield* Effect.all(
          [
            Effect.provide(IntentRunner.runDueIntents(), server.context),
            Effect.provide(IntentRunner.runDueIntents(), server.context)
          ],
          { concurrency: 2 }
        )
        const ran = [...a, ...b].filter((r) => r.payment.team_nanoid === t.team)
        assert.deepStrictEqual(
          ran.map((r) => r.run),
          ["complete"]
        )
        assert.strictEqual(yield* balanceOf(t.account), units(100_00 - 700))
        assert.strictEqual(yield* balanceOf(yield* userAccount(t.employee)), units(700))
        const complete = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}&state=complete`, {
          token: t.token
        })
        assert.strictEqual(complete.body.data.items.length, 1)
        assert.notStrictEqual(complete.body.data.items[0].payment.process_transaction, "")
        const groupEvents = yield* Effect.promise(() =>
          server.db
            .collection("event_outbox")
            .countDocuments({ "event.team_nanoid": t.team, "event.event_type": "payment.group.created" })
        )
        assert.strictEqual(groupEvents, 1)
        const again = yield* IntentRunner.runDueIntents().pipe(Effect.provide(server.context))
        assert.strictEqual(again.filter((r) => r.payment.team_nanoid === t.team).length, 0)
        const sent = yield* Effect.promise(() =>
          server.db
            .collection("event_outbox")
            .countDocuments({ "event.team_nanoid": t.team, "event.event_type": "payment.sent" })
        )
        assert.strictEqual(sent, 1)
      })
    )

    it.effect("the intent runner worker, as npm start runs it, pays a due intent by itself", () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture
        const t = yield* fundedTeam(100_00)
        const payAt = Math.floor(Date.now() / 1000) + 2
        const body = { from: t.team, to: [entry(t.employee.user, 400)], pay_now: false }
        const bundle = yield* issue(t.token, { ...body, pay_at_time: payAt })
        const put = yield* call(server, "PUT", "/v2/payments", {
          token: t.token,
          body: putBody(body, bundle, t.admin.address, yield* signViem(t.adminKey, bundle))
        })
        assert.strictEqual(put.status, 200, JSON.stringify(put.body))
        yield* Layer.build(IntentRunner.layer({ every: Duration.millis(200) })).pipe(Effect.provide(server.context))
        yield* eventually(
          Effect.map(
            call(server, "GET", `/v2/payments?team_nanoid=${t.team}`, { token: t.token }),
            (items) => items.body.data.items[0]?.payment.state === "complete"
          ),
          { what: "the intent paid by the runner", every: "200 millis" }
        )
        assert.strictEqual(yield* balanceOf(yield* userAccount(t.employee)), units(400))
      }).pipe(Effect.scoped)
    )

    it.effect("an intent the chain does not know fails once, with payment.failed", () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture
        const t = yield* fundedTeam(0)
        const nanoid = `pa-ghost${Date.now().toString(36)}`
        const now = new Date().toISOString()
        yield* Effect.promise(() =>
          server.db.collection("payments").insertOne({
            _id: nanoid as never,
            nanoid,
            group_nanoid: "pg-ghost0000001",
            invoice_nanoid: "iv-ghost0000001",
            team_nanoid: t.team,
            payer_nanoid: t.adminUser,
            recipient_nanoid: t.employee.user,
            state: "intent",
            amount_cents: 100,
            currency_symbol: "USD",
            token: t.account,
            token_amount: "1000000",
            token_decimals: 6,
            pay_type: "2",
            pay_at_time: 1,
            valid_minutes: 1440,
            onchain_id: keccak256(toHex(nanoid)),
            group_onchain_id: keccak256(toHex("pg-ghost0000001")),
            data: "0x",
            salt: "1",
            invoice: {
              invoice_description: "",
              role_description: "",
              services_description: "",
              payment_details: "",
              external_sow_url: "",
              svc_sow: false
            },
            created_at: now,
            updated_at: now,
            lease_until: 0
          })
        )
        const [a, b] = yield* Effect.all(
          [
            Effect.provide(IntentRunner.runDueIntents(), server.context),
            Effect.provide(IntentRunner.runDueIntents(), server.context)
          ],
          { concurrency: 2 }
        )
        const ran = [...a, ...b].filter((r) => r.payment.nanoid === nanoid)
        assert.deepStrictEqual(
          ran.map((r) => r.run),
          ["failed"]
        )
        const failed = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}`, { token: t.token })
        assert.strictEqual(failed.body.data.items[0].payment.state, "failed")
        const events = yield* Effect.promise(() =>
          server.db.collection("event_outbox").find({ "event.team_nanoid": t.team }).toArray()
        )
        assert.deepStrictEqual(
          events.map((e) => e.event.event_type),
          ["payment.failed"]
        )
      })
    )

    it.effect("an instant payment to an e-mail waits in the escrow under the address's claim id", () =>
      Effect.gen(function* () {
        const { server, embedded } = yield* Fixture
        const t = yield* fundedTeam(100_00)
        const escrowBefore = yield* balanceOf(embedded.suite.escrow)
        const post = yield* call(server, "POST", "/v2/payments/external_entity/instant", {
          token: t.token,
          body: {
            from: t.team,
            amount_cents: 1500,
            payment_data: { invoice_description: "consulting" },
            external_recipient_email: "Bob@Example.com"
          }
        })
        assert.strictEqual(post.status, 200, JSON.stringify(post.body))
        const bundle = post.body.data as TypedDataBundle
        assert.strictEqual(bundle.primary_type, "CreatePaymentForwardRequest")
        assert.strictEqual((bundle.typed_data as Json).data.payType, "3")
        const body = { from: t.team, to: [entry("bob@example.com", 1500, "consulting")], pay_now: true }
        const put = yield* call(server, "PUT", "/v2/payments", {
          token: t.token,
          body: putBody(body, bundle, t.admin.address, yield* signViem(t.adminKey, bundle))
        })
        assert.strictEqual(put.status, 200, JSON.stringify(put.body))
        assert.strictEqual((yield* balanceOf(embedded.suite.escrow)) - escrowBefore, units(1500))
        assert.strictEqual(yield* balanceOf(t.account), units(100_00 - 1500))
        const query = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}`, { token: t.token })
        assert.strictEqual(query.body.data.items[0].recipient.email, "bob@example.com")
      })
    )

    it.effect("the query filters by state, direction, recipient and dates, for members of the team only", () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture
        const a = yield* fundedTeam(100_00)
        const b = yield* fundedTeam(100_00)
        // The employee of team A also works for team B, which pays them.
        yield* addMember(b.team, a.employee.account.address, "team_contractor", "x@t.example").pipe(
          Effect.provide(server.context)
        )
        const pay = (t: typeof a, to: string, cents: number, payNow: boolean) =>
          Effect.gen(function* () {
            const body = { from: t.team, to: [entry(to, cents)], pay_now: payNow }
            const bundle = yield* issue(t.token, { ...body, pay_at_time: Math.floor(Date.now() / 1000) + 3600 })
            const put = yield* call(server, "PUT", "/v2/payments", {
              token: t.token,
              body: putBody(body, bundle, t.admin.address, yield* signViem(t.adminKey, bundle))
            })
            assert.strictEqual(put.status, 200, JSON.stringify(put.body))
          })
        yield* pay(a, a.employee.user, 100, true)
        yield* pay(a, a.contractor.user, 200, false)
        yield* pay(b, a.employee.user, 300, true)

        const query = (t: typeof a, params: string) =>
          Effect.map(
            call(server, "GET", `/v2/payments?team_nanoid=${t.team}${params}`, { token: t.token }),
            (response) => {
              assert.strictEqual(response.status, 200, JSON.stringify(response.body))
              return (response.body.data.items as Array<Json>).map((i) => i.invoice.amount_cents as number)
            }
          )
        assert.deepStrictEqual(yield* query(a, ""), [200, 100])
        assert.deepStrictEqual(yield* query(a, "&state=all&query_type=payable"), [200, 100])
        assert.deepStrictEqual(yield* query(a, "&state=complete"), [100])
        assert.deepStrictEqual(yield* query(a, "&state=intent"), [200])
        // The intent due in an hour is registered and not yet due: `scheduled` (docs/payments.md).
        assert.deepStrictEqual(yield* query(a, "&state=scheduled"), [200])
        assert.deepStrictEqual(yield* query(a, `&recipient=${a.contractor.user}`), [200])
        assert.deepStrictEqual(yield* query(a, "&query_type=receivable"), [300])
        // Team A's payment to the same person is team B's receivable too: receivables are by recipient membership.
        assert.deepStrictEqual(yield* query(b, "&query_type=receivable"), [100])
        assert.deepStrictEqual(yield* query(b, `&query_type=receivable&recipient=${a.contractor.user}`), [])
        const today = new Date().toISOString().slice(0, 10)
        const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10)
        const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
        assert.deepStrictEqual(yield* query(a, `&start_date=${today}&end_date=${today}`), [200, 100])
        assert.deepStrictEqual(yield* query(a, `&start_date=${tomorrow}`), [])
        assert.deepStrictEqual(yield* query(a, `&end_date=${yesterday}`), [])

        // Not a member of team A: refused; a viewer of team A: allowed; a payable member: refused.
        const outsider = yield* call(server, "GET", `/v2/payments?team_nanoid=${a.team}`, { token: b.token })
        assert.strictEqual(outsider.status, 403)
        const viewerToken = yield* signIn(server, a.viewer.account)
        assert.strictEqual(
          (yield* call(server, "GET", `/v2/payments?team_nanoid=${a.team}`, { token: viewerToken })).status,
          200
        )
        const employeeToken = yield* signIn(server, a.employee.account)
        assert.strictEqual(
          (yield* call(server, "GET", `/v2/payments?team_nanoid=${a.team}`, { token: employeeToken })).status,
          403
        )
        // Bad parameters.
        for (const params of [
          "&state=done",
          "&query_type=both",
          "&start_date=2026-13-01",
          "&recipient=te-000000000001"
        ]) {
          const bad = yield* call(server, "GET", `/v2/payments?team_nanoid=${a.team}${params}`, { token: a.token })
          assert.strictEqual(bad.status, 400, params)
        }

        // The balance of one's own user account; not another's.
        const own = yield* call(server, "GET", `/v2/balance?nanoid=${a.employee.user}`, { token: employeeToken })
        assert.strictEqual(own.status, 200)
        assert.deepStrictEqual(own.body.data.balances, [{ currency: "USD", balance_cents: 400 }])
        const other = yield* call(server, "GET", `/v2/balance?nanoid=${a.contractor.user}`, { token: employeeToken })
        assert.strictEqual(other.status, 403)
      })
    )

    it.effect("the authorisation matrix holds on the served payment and balance routes", () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture
        const roles = ["team_admin", "team_finance_admin", "team_viewer", "team_employee", "team_contractor"] as const
        const seeded = yield* seedTeam(server, [...roles])
        const other = seeded.members[3] as SeededMember
        for (const member of seeded.members) {
          const token = yield* signIn(server, member.account)
          const routes = [
            { action: "payments.read", method: "GET", path: `/v2/payments?team_nanoid=${seeded.teamId}` },
            { action: "balance.read", method: "GET", path: `/v2/balance?nanoid=${seeded.teamId}` },
            {
              action: "payments.create",
              method: "POST",
              path: "/v2/payments",
              body: { from: seeded.teamId, to: [entry(other.user, 100)], pay_now: true }
            },
            {
              action: "payments.create",
              method: "POST",
              path: "/v2/payments/external_entity/instant",
              body: {
                from: seeded.teamId,
                amount_cents: 100,
                payment_data: {},
                external_recipient_email: "a@b.example"
              }
            },
            {
              action: "payments.execute",
              method: "PUT",
              path: "/v2/payments",
              body: {
                from: seeded.teamId,
                to: [entry(other.user, 100)],
                pay_now: true,
                signer: member.account.address,
                typed_data: placeholderTypedData(member.account.address, member.account.address, "9999999999"),
                signature: placeholderSignature
              }
            }
          ] as const
          for (const route of routes) {
            const response = yield* call(server, route.method, route.path, {
              token,
              body: "body" in route ? route.body : undefined
            })
            const label = `${member.role} ${route.method} ${route.path} -> ${response.status} ${JSON.stringify(response.body)}`
            if ((Permissions[route.action].roles as ReadonlyArray<string>).includes(member.role)) {
              assert.notStrictEqual(response.status, 403, label)
              assert.isTrue(response.status < 500, label)
            } else {
              assert.strictEqual(response.status, 403, label)
            }
          }
        }
      })
    )

    it.effect("on SQLite, two API processes sharing one file and receiving the same PUT at once: one transfer", () =>
      Effect.gen(function* () {
        const { embedded, gateway, chainLayer } = yield* Fixture
        const server = yield* startTestServerWith({ chain: chainLayer })
        // The second process has its own relayer key (relayer nonces are per process, decision 0006).
        const relayerKey = generatePrivateKey()
        yield* embedded.setEtherBalance(privateKeyToAccount(relayerKey).address, 10n ** 21n).pipe(Effect.orDie)
        const second = yield* startTestServerWith({
          storage: server.storage,
          jwtSecret: server.jwtSecret,
          chain: ViemChainGateway.layer({
            rpcUrl: Redacted.make(rpcUrl),
            chainId,
            relayerKeys: [Redacted.make(relayerKey)],
            addresses: embedded.suite,
            pollingInterval: 10
          }).pipe(Layer.orDie)
        })
        const seeded = yield* seedTeam(server, ["team_admin", "team_employee"])
        const employee = seeded.members[1] as SeededMember
        const adminKey = generatePrivateKey()
        const admin = privateKeyToAccount(adminKey)
        yield* addMember(seeded.teamId, admin.address, "team_admin", "sqlite-admin@t.example").pipe(
          Effect.provide(server.context)
        )
        const { account } = yield* gateway
          .createAccount(admin.address, keccak256(toHex(seeded.teamId)))
          .pipe(Effect.orDie)
        yield* embedded.mint(account, units(100_00)).pipe(Effect.orDie)
        yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
          Effect.provide(server.context)
        )
        const token = yield* signIn(server, admin)
        const body = { from: seeded.teamId, to: [entry(employee.user, 900)], pay_now: true }
        const posted = yield* call(server, "POST", "/v2/payments", { token, body })
        assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
        const bundle = posted.body.data as TypedDataBundle
        const request = putBody(body, bundle, admin.address, yield* signViem(adminKey, bundle))
        const [a, b] = yield* Effect.all(
          [
            call(server, "PUT", "/v2/payments", { token, body: request }),
            call(second, "PUT", "/v2/payments", { token, body: request })
          ],
          { concurrency: 2 }
        )
        // One executes; the other answers its result, or 202 with its transaction while that is not recorded yet
        // (decision 0061). Either way the same transaction, and the same PUT then answers 200 with it.
        for (const answer of [a, b]) assert.include([200, 202], answer.status, JSON.stringify(answer.body))
        assert.strictEqual(b.body.data.transaction, a.body.data.transaction)
        const again = yield* untilStatus(call(second, "PUT", "/v2/payments", { token, body: request }), 200)
        assert.deepStrictEqual([again.status, again.body.data.transaction], [200, a.body.data.transaction])
        assert.strictEqual(yield* balanceOf(account), units(100_00 - 900))
        const query = yield* call(second, "GET", `/v2/payments?team_nanoid=${seeded.teamId}&state=complete`, { token })
        assert.strictEqual(query.body.data.items.length, 1)
      }).pipe(Effect.scoped)
    )

    it.effect("the limits of SPEC §8 hold on the payment routes", () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture
        const t = yield* fundedTeam(0)
        const post = (path: string, body: unknown) => call(server, "POST", path, { token: t.token, body })
        const batch = (n: number) => ({
          from: t.team,
          to: Array.from({ length: n }, (_, i) => entry(t.employee.user, 1, `work ${i}`)),
          pay_now: true
        })
        assert.strictEqual((yield* post("/v2/payments", batch(0))).status, 400)
        assert.strictEqual((yield* post("/v2/payments", batch(1001))).status, 400)
        assert.strictEqual((yield* post("/v2/payments", batch(1000))).status, 200)
        assert.strictEqual(
          (yield* post("/v2/payments", { ...batch(1), to: [entry("us-nobody000001", 100)] })).status,
          400
        )
        const instant = (amount_cents: number) => ({
          from: t.team,
          amount_cents,
          payment_data: {},
          external_recipient_email: "x@example.com"
        })
        const path = "/v2/payments/external_entity/instant"
        assert.strictEqual((yield* post(path, instant(99))).status, 400)
        assert.strictEqual((yield* post(path, instant(10_000_000_001))).status, 400)
        assert.strictEqual((yield* post(path, instant(100))).status, 200)
        assert.strictEqual((yield* post(path, instant(10_000_000_000))).status, 200)
        const bundle = yield* issue(t.token, batch(1))
        const put = (signature: string) =>
          call(server, "PUT", "/v2/payments", {
            token: t.token,
            body: { ...batch(1), signer: t.admin.address, typed_data: bundle.typed_data, signature }
          })
        assert.strictEqual((yield* put(`0x${"0".repeat(130)}`)).status, 400)
        assert.strictEqual((yield* put(`0x${"ab".repeat(64)}`)).status, 400)
        assert.strictEqual((yield* call(server, "PUT", "/v2/payments", { token: t.token, body: batch(1) })).status, 400)
      })
    )

    it.effect(
      "a replay of a request whose executor died mid-execution takes it over once its claim lapses and pays it once",
      () =>
        Effect.gen(function* () {
          const { server } = yield* Fixture
          const t = yield* fundedTeam(1_000_00)
          const body = { from: t.team, to: [entry(t.employee.user, 100)], pay_now: true }
          const bundle = yield* issue(t.token, body)
          const signature = yield* signViem(t.adminKey, bundle)
          // What a process killed between its claim and its send leaves: the salt claimed, its lease lapsing in 1 s
          // (no one renews it). Before issue 36 the replay answered 409 ALREADY_EXECUTED for the claim's two minutes.
          const now = Date.now()
          yield* IssuedRequestStore.use((store) =>
            store.claim(bundle.typed_data.salt, { now, until: now + 1_000, signature })
          ).pipe(Effect.provide(server.context), Effect.orDie)
          const replay = yield* call(server, "PUT", "/v2/payments", {
            token: t.token,
            body: putBody(body, bundle, t.admin.address, signature)
          })
          assert.strictEqual(replay.status, 200, JSON.stringify(replay.body))
          assert.match(replay.body.data.transaction, /^0x[0-9a-f]{64}$/)
          assert.strictEqual(yield* balanceOf(t.account), units(1_000_00 - 100))
        }),
      60_000
    )

    it.effect(
      "requests whose holder died are finished by recovery without their PUT: recorded when mined, sent again when lost",
      () =>
        Effect.gen(function* () {
          const { server, gateway } = yield* Fixture
          const t = yield* fundedTeam(1_000_00)
          // What a process killed after sending leaves: the salt claimed (its lease since lapsed) with its signature,
          // its transaction noted.
          const died = (cents: number) =>
            Effect.gen(function* () {
              const body = { from: t.team, to: [entry(t.employee.user, cents)], pay_now: true }
              const bundle = yield* issue(t.token, body)
              const signature = yield* signViem(t.adminKey, bundle)
              const at = Date.now() - 60_000
              const claim = yield* IssuedRequestStore.use((store) =>
                store.claim(bundle.typed_data.salt, { now: at, until: at + 1_000, signature })
              ).pipe(Effect.provide(server.context), Effect.orDie)
              const note = (transaction: string) =>
                PaymentLedger.use((ledger) =>
                  ledger.noteInFlight({
                    salt: bundle.typed_data.salt,
                    token: claim.claim.token,
                    result: { transaction, payments: [] },
                    payments: []
                  })
                ).pipe(Effect.provide(server.context))
              return { body, bundle, signature, note }
            })
          // Mined before its holder died: only the record is missing.
          const mined = yield* died(100)
          const settlement = yield* gateway
            .executePayments({
              request: paymentsRequestOf(mined.bundle.typed_data as PaymentsTypedDataMessage),
              signature: mined.signature
            })
            .pipe(Effect.orDie)
          yield* mined.note(settlement.transactionHash)
          // Lost: the transaction it noted is none the journal knows (the node never took it).
          const lost = yield* died(200)
          yield* lost.note(`0x${"ab".repeat(32)}`)

          const taken = yield* Recovery.recoverAbandoned(100).pipe(Effect.provide(server.context))
          assert.includeMembers([...taken], [mined.bundle.typed_data.salt, lost.bundle.typed_data.salt])
          const executed = (bundle: TypedDataBundle) =>
            PaymentLedger.use((ledger) => ledger.outcome(bundle.typed_data.salt)).pipe(
              Effect.map((outcome) => outcome.state === "executed"),
              Effect.provide(server.context),
              Effect.orDie
            )
          yield* eventually(executed(mined.bundle), { what: "the mined request recorded" })
          yield* eventually(executed(lost.bundle), { what: "the lost request sent again and recorded" })

          // Both are paid once and listed complete; the same PUT answers each with its transaction.
          const replay = (request: typeof mined) =>
            call(server, "PUT", "/v2/payments", {
              token: t.token,
              body: putBody(request.body, request.bundle, t.admin.address, request.signature)
            })
          const minedReplay = yield* replay(mined)
          assert.deepStrictEqual(
            [minedReplay.status, minedReplay.body.data.transaction],
            [200, settlement.transactionHash]
          )
          const lostReplay = yield* replay(lost)
          assert.strictEqual(lostReplay.status, 200, JSON.stringify(lostReplay.body))
          const listed = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}`, { token: t.token })
          assert.deepStrictEqual(
            listed.body.data.items
              .map((item: Json) => [item.payment.amount_cents, item.payment.state, item.payment.creation_transaction])
              .sort((a: Json, b: Json) => a[0] - b[0]),
            [
              [100, "complete", settlement.transactionHash],
              [200, "complete", lostReplay.body.data.transaction]
            ]
          )
          assert.strictEqual(yield* balanceOf(t.account), units(1_000_00 - 300))
          // Nothing is left to take over.
          const again = yield* Recovery.recoverAbandoned(100).pipe(Effect.provide(server.context))
          assert.notInclude([...again], mined.bundle.typed_data.salt)
          assert.notInclude([...again], lost.bundle.typed_data.salt)
        }),
      60_000
    )

    it.effect(
      "a pending intent: canceled by its signer (DELETE), then neither cancelable again nor executed when due",
      () =>
        Effect.gen(function* () {
          const { server } = yield* Fixture
          const t = yield* fundedTeam(100_00)
          const payAt = yield* registerIntent(t, 300, 2)
          const intents = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}&state=intent`, {
            token: t.token
          })
          const payment = intents.body.data.items[0].payment.nanoid as string
          const cancel = (token: string, id = payment) =>
            call(server, "DELETE", `/v2/payments/intents/${id}`, { token })

          // Someone outside the team may not; the signer may.
          const stranger = yield* signIn(server, privateKeyToAccount(generatePrivateKey()))
          assert.include([403, 404], (yield* cancel(stranger)).status)
          const canceled = yield* cancel(t.token)
          assert.strictEqual(canceled.status, 200, JSON.stringify(canceled.body))
          assert.deepStrictEqual(canceled.body.data, { payment_nanoid: payment, state: "canceled" })
          const again = yield* cancel(t.token)
          assert.strictEqual(again.status, 409)
          assert.strictEqual(again.body.error_code, "INVALID_STATE_TRANSITION")
          assert.strictEqual((yield* cancel(t.token, "pa-000000000000")).status, 404)

          // Due, the runners leave it alone: nothing moves.
          yield* whenDue(payAt)
          const ran = yield* IntentRunner.runDueIntents().pipe(Effect.provide(server.context))
          assert.deepStrictEqual(
            ran.filter((r) => r.payment.team_nanoid === t.team),
            []
          )
          assert.strictEqual(yield* balanceOf(t.account), units(100_00))
          const events = yield* Effect.promise(() =>
            server.db
              .collection("event_outbox")
              .countDocuments({ "event.team_nanoid": t.team, "event.event_type": "payment.canceled" })
          )
          assert.strictEqual(events, 1)
        }),
      60_000
    )

    it.effect(
      "a removed finance admin's pending intents are canceled with the removal, and never paid when due",
      () =>
        Effect.gen(function* () {
          const { server } = yield* Fixture
          // The account's owner is a team admin here: it grants a finance admin on chain (a manager invite).
          const t = yield* fundedTeam(100_00, { adminRole: "team_admin" })
          const finance = privateKeyToAccount(generatePrivateKey())
          const teamAdmin = t.token
          const invited = yield* call(server, "POST", "/v2/invites/manager", {
            token: teamAdmin,
            body: {
              nanoid: t.team,
              invites: [{ email: "fin2@example.com", role: "team_finance_admin", wallet: finance.address }]
            }
          })
          assert.strictEqual(invited.status, 200, JSON.stringify(invited.body))
          const roles = invited.body.data as TypedDataBundle & { invites: Array<string> }
          const granted = yield* call(server, "PUT", "/v2/invites/manager", {
            token: teamAdmin,
            body: {
              invites: roles.invites,
              signer: t.admin.address,
              typed_data: roles.typed_data,
              signature: yield* signViem(t.adminKey, roles)
            }
          })
          assert.strictEqual(granted.status, 200, JSON.stringify(granted.body))
          const financeToken = yield* signIn(server, finance)
          const payAt = Math.floor(Date.now() / 1000) + 3
          const body = { from: t.team, to: [entry(t.employee.user, 900)], pay_now: false }
          const issued = yield* call(server, "POST", "/v2/payments", {
            token: financeToken,
            body: { ...body, pay_at_time: payAt }
          })
          assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
          const bundle = issued.body.data as TypedDataBundle
          const put = yield* call(server, "PUT", "/v2/payments", {
            token: financeToken,
            body: putBody(
              body,
              bundle,
              finance.address,
              yield* Effect.promise(() => finance.signTypedData(signableOf(bundle) as never))
            )
          })
          assert.strictEqual(put.status, 200, JSON.stringify(put.body))

          // The owner removes them: their intent is canceled at once, with its event.
          const users = yield* call(server, "GET", `/v2/teams/${t.team}/users`, { token: teamAdmin })
          const financeUser = (users.body.data.users as Array<{ nanoid: string; email: string }>).find(
            (u) => u.email === "fin2@example.com"
          )?.nanoid
          const removed = yield* call(server, "DELETE", `/v2/teams/${t.team}/member/${financeUser}`, {
            token: teamAdmin
          })
          assert.strictEqual(removed.status, 200, JSON.stringify(removed.body))
          const all = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}&state=all`, { token: t.token })
          assert.deepStrictEqual(
            (all.body.data.items as Array<{ payment: { state: string } }>).map((item) => item.payment.state),
            ["canceled"]
          )

          // Due, nothing is paid.
          yield* whenDue(payAt)
          const ran = yield* IntentRunner.runDueIntents().pipe(Effect.provide(server.context))
          assert.deepStrictEqual(
            ran.filter((r) => r.payment.team_nanoid === t.team),
            []
          )
          assert.strictEqual(yield* balanceOf(t.account), units(100_00))
        }),
      90_000
    )

    it.effect("an intent a runner takes after its signer lost the right to pay is canceled, not paid", () =>
      Effect.gen(function* () {
        const { server } = yield* Fixture
        const t = yield* fundedTeam(100_00)
        const payAt = yield* registerIntent(t, 200, 2)
        // The signer's membership ends behind the removal's back (as a removal racing a runner would leave it).
        yield* MembershipRepository.use((m) => m.remove(t.team, t.adminUser)).pipe(Effect.provide(server.context))
        yield* whenDue(payAt)
        const ran = yield* IntentRunner.runDueIntents().pipe(Effect.provide(server.context))
        assert.deepStrictEqual(
          ran.filter((r) => r.payment.team_nanoid === t.team).map((r) => r.run),
          ["canceled"]
        )
        assert.strictEqual(yield* balanceOf(t.account), units(100_00))
      })
    )
  }
)
