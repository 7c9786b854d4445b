/**
 * A process that pays an invoice and is killed (`SIGKILL`, as `kill -9`) inside the unit of work that records the
 * payment, after the payment's record is written and before the invoice is marked paid: run by
 * `PayInvoicesKill.test.ts`, on the storage and the chain suite it names (env `STORAGE`, `RPC_URL`, `SUITE`,
 * `RELAYER_KEYS`). It prints the ids it made on one JSON line before it pays. Plain Node runs it (type stripping).
 */
import { JongodbDatabase } from "@svc/adapters/embedded"
import { EmbeddedChain } from "@svc/adapters/evm"
import { MongoStorage } from "@svc/adapters/mongo"
import { SqliteStorage } from "@svc/adapters/sqlite"
import { Context, Effect, Layer, Redacted, Schema } from "effect"
import type { Hex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { ChainGateway } from "../src/chain/ChainGateway.ts"
import { svcAccountSaltOf } from "../src/chain/SvcAccountSalt.ts"
import { walletAddressOf } from "../src/Evm.ts"
import { signTypedDataBundle } from "../src/eip712/TypedDataSignature.ts"
import { IdGenerator, type TeamId } from "../src/Ids.ts"
import { createInvoice } from "../src/invoice/CreateInvoice.ts"
import { InvoiceRepository } from "../src/invoice/InvoiceRepository.ts"
import { CreateInvoiceRequest } from "../src/invoice/InvoiceRequests.ts"
import { MembershipRepository, type Role, TeamAccess } from "../src/membership/index.ts"
import { executeSignedPayments } from "../src/payment/ExecuteSignedPayments.ts"
import { Executions } from "../src/payment/Executions.ts"
import { issuePayments } from "../src/payment/IssuePayments.ts"
import { CreatePaymentsRequest, ExecutePaymentsRequest } from "../src/payment/PaymentRequests.ts"
import { Randomness } from "../src/Randomness.ts"
import { SignatureVerifier } from "../src/signature/SignatureVerifier.ts"
import { TeamRepository } from "../src/team/index.ts"
import { type Caller, newUser, UserRepository } from "../src/user/index.ts"
import { insertTeam } from "./UseCaseKit.ts"

const env = process.env
const storage = JSON.parse(env.STORAGE ?? "{}") as { sqlite?: string; mongo?: string; database?: string }

/** The storage the test names, its invoice store replaced by one that kills the process as an invoice is paid. */
const dying = Layer.effectContext(
  Effect.gen(function* () {
    const context = yield* Layer.build(
      storage.sqlite !== undefined
        ? Layer.orDie(SqliteStorage.layer({ filename: storage.sqlite }))
        : MongoStorage.ports.pipe(
            Layer.provide(JongodbDatabase.layerDetected({ uri: storage.mongo ?? "", database: storage.database })),
            Layer.orDie
          )
    )
    const real = Context.get(context, InvoiceRepository)
    return Context.add(context, InvoiceRepository, {
      ...real,
      transition: (id, from, to, change) =>
        to === "paid"
          ? Effect.andThen(
              Effect.sync(() => process.kill(process.pid, "SIGKILL")),
              Effect.never
            )
          : real.transition(id, from, to, change)
    })
  })
).pipe(Layer.orDie)

const chain = EmbeddedChain.layer({
  rpcUrl: env.RPC_URL ?? "",
  chainId: 42161,
  suite: JSON.parse(env.SUITE ?? "{}"),
  relayerKeys: (JSON.parse(env.RELAYER_KEYS ?? "[]") as Array<Hex>).map((key) => Redacted.make(key))
}).pipe(Layer.orDie)

const now = new Date().toISOString()

/** A user with `wallet`, a member of `team` with `role`. */
const member = (team: TeamId, wallet: string, role: Role) =>
  Effect.gen(function* () {
    const ids = yield* IdGenerator
    const caller: Caller = { nanoid: yield* ids.make("user"), wallet: walletAddressOf(wallet) }
    yield* UserRepository.use((u) => u.insert(newUser({ ...caller, created_at: now }))).pipe(Effect.orDie)
    const nanoid = yield* ids.make("membership")
    yield* MembershipRepository.use((m) =>
      m.insert({ nanoid, team_nanoid: team, user_nanoid: caller.nanoid, role, email: "", created_at: now })
    ).pipe(Effect.orDie)
    return caller
  })

const program = Effect.gen(function* () {
  const { team } = yield* insertTeam(now)
  const key = generatePrivateKey()
  const admin = yield* member(team, privateKeyToAccount(key).address, "team_admin")
  const employee = yield* member(team, privateKeyToAccount(generatePrivateKey()).address, "team_employee")
  const { account } = yield* ChainGateway.use((c) => c.createAccount(admin.wallet, svcAccountSaltOf(team))).pipe(
    Effect.orDie
  )
  yield* TeamRepository.use((t) => t.update(team, { svc_account: account }))
  yield* EmbeddedChain.use((c) => c.mint(account, 100n * 10n ** 6n)).pipe(Effect.orDie)
  const invoice = yield* createInvoice(
    employee,
    Schema.decodeUnknownSync(CreateInvoiceRequest)({ team_nanoid: team, invoice_number: "K-1", amount_cents: 4_200 })
  )
  const body = Schema.decodeUnknownSync(CreatePaymentsRequest)({
    from: team,
    to: [{ invoice_nanoid: invoice.nanoid }],
    pay_now: true
  })
  const bundle = yield* issuePayments(admin, body)
  const signature = yield* signTypedDataBundle(bundle, key)
  console.log(JSON.stringify({ team, invoice: invoice.nanoid, salt: bundle.typed_data.salt, pid: process.pid }))
  yield* executeSignedPayments(
    admin,
    Schema.decodeUnknownSync(ExecutePaymentsRequest)({
      ...Schema.encodeSync(CreatePaymentsRequest)(body),
      signer: admin.wallet,
      typed_data: bundle.typed_data,
      signature
    })
  )
  console.log("paid without dying")
})

await Effect.runPromise(
  program.pipe(
    Effect.provide(
      Layer.mergeAll(TeamAccess.layer, SignatureVerifier.layer).pipe(
        Layer.provideMerge(
          Layer.mergeAll(dying, chain, IdGenerator.layer, Randomness.layer, Executions.layer({ graceMillis: 0 }))
        )
      )
    ),
    Effect.scoped
  )
)
