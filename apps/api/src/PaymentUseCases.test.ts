/**
 * The payment use cases of the domain (`Payments`), called directly on the server's storage (jongodb) and chain
 * (anvil): the refusals no HTTP test reaches, each a domain error with its catalog code and message.
 */
import { assert, layer } from "@effect/vitest"
import { EmbeddedChain } from "@svc/adapters/evm"
import { ChainGateway, svcAccountSaltOf } from "@svc/domain/chain"
import { walletAddressOf } from "@svc/domain/Evm"
import type { CodedError } from "@svc/domain/errors"
import { BalanceQuery, CreatePaymentsRequest, ExecutePaymentsRequest, Payments } from "@svc/domain/payment"
import { TeamRepository } from "@svc/domain/team"
import { type Caller, userAccountOf } from "@svc/domain/user"
import { Context, Effect, Layer, Schema } from "effect"
import { isAddressEqual } from "viem"
import { inject } from "vitest"
import {
  placeholderSignature,
  placeholderTypedData,
  type SeededMember,
  seedTeam,
  startTestServerWith,
  type TestServer
} from "../test/TestServer.ts"

class Fixture extends Context.Service<
  Fixture,
  { readonly server: TestServer; readonly payments: Payments["Service"]; readonly chain: ChainGateway["Service"] }
>()("test/payment-use-cases/Fixture") {}

const FixtureLayer = Layer.effect(
  Fixture,
  Effect.gen(function* () {
    const chainContext = yield* Layer.build(EmbeddedChain.layer({ rpcUrl: inject("rpcUrl"), chainId: 42161 })).pipe(
      Effect.orDie
    )
    const server = yield* startTestServerWith({ chain: Layer.succeedContext(chainContext) })
    const payments = yield* Payments.pipe(
      Effect.provide(Payments.layer.pipe(Layer.provide(Layer.succeedContext(server.context))))
    )
    return { server, payments, chain: Context.get(chainContext, ChainGateway) }
  })
)

const callerOf = (member: SeededMember): Caller => ({
  nanoid: member.user,
  wallet: walletAddressOf(member.account.address)
})

/** The error's tag, catalog code and message. */
const refusal = <A, E extends CodedError>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.flip(effect), (error) => [error._tag, error.errorCode, error.message])

/** Bodies as the routes decode them. */
const batchOf = Schema.decodeUnknownSync(CreatePaymentsRequest)
const executionOf = Schema.decodeUnknownSync(ExecutePaymentsRequest)
const balanceOf = Schema.decodeUnknownSync(BalanceQuery)

layer(FixtureLayer, { timeout: 120_000, excludeTestServices: true })("payment use cases", (it) => {
  it.effect("issuing needs a team account and member recipients", () =>
    Effect.gen(function* () {
      const { server, payments, chain } = yield* Fixture
      const seeded = yield* seedTeam(server, ["team_admin", "team_employee"])
      const [admin, employee] = seeded.members as [SeededMember, SeededMember]
      const batch = (to: string) =>
        batchOf({
          from: seeded.teamId,
          to: [{ to, amount_cents: 100, currency_symbol: "USD", invoice_description: "work" }],
          pay_now: true
        })
      const asAdmin = (to: string) => payments.issueBatch(callerOf(admin), batch(to))

      assert.deepStrictEqual(yield* refusal(asAdmin(employee.user)), [
        "TeamAccountMissing",
        "INVALID_STATE_TRANSITION",
        "The team has no svc account yet"
      ])

      const account = yield* chain.accountAddress(admin.account.address, svcAccountSaltOf(seeded.teamId))
      yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
        Effect.provide(server.context)
      )
      assert.deepStrictEqual(yield* refusal(asAdmin("bob@example.com")), [
        "InvalidRecipient",
        "INVALID_RECIPIENT",
        "Batch recipients are members, by user nanoid"
      ])
      const stranger = "us-000000000000"
      assert.deepStrictEqual(yield* refusal(asAdmin(stranger)), [
        "InvalidRecipient",
        "INVALID_RECIPIENT",
        `${stranger} is not a member of the team`
      ])
      const bundle = yield* asAdmin(employee.user)
      assert.isTrue(isAddressEqual(bundle.typed_data.from, admin.account.address))
      assert.strictEqual(
        bundle.typed_data.data.payments[0]?.recipient,
        yield* userAccountOf(chain, { nanoid: employee.user, wallet: walletAddressOf(employee.account.address) })
      )
    })
  )

  it.effect("balances: your own account, a team's once it has one, never a company's or another user's", () =>
    Effect.gen(function* () {
      const { server, payments, chain } = yield* Fixture
      const seeded = yield* seedTeam(server, ["team_admin", "team_employee"])
      const [admin, employee] = seeded.members as [SeededMember, SeededMember]
      const me = callerOf(admin)
      assert.deepStrictEqual(yield* refusal(payments.balance(me, balanceOf({ nanoid: seeded.teamId }))), [
        "BalanceNotFound",
        "NOT_FOUND",
        "The team has no svc account yet"
      ])
      assert.deepStrictEqual(yield* refusal(payments.balance(me, balanceOf({ nanoid: seeded.companyId }))), [
        "BalanceNotFound",
        "NOT_FOUND",
        "Company accounts have no balance here"
      ])
      assert.deepStrictEqual(yield* refusal(payments.balance(me, balanceOf({ nanoid: employee.user }))), [
        "InsufficientPermissions",
        "INSUFFICIENT_PERMISSIONS",
        "Only your own balance"
      ])
      const own = yield* payments.balance(me, balanceOf({ nanoid: admin.user }))
      assert.strictEqual(own.svc_account_address, yield* userAccountOf(chain, me))
      assert.deepStrictEqual(own.balances, [{ currency: "USD", balance_cents: 0 }])
    })
  )

  it.effect("executing an unknown salt, and acting on a team one is not a member of", () =>
    Effect.gen(function* () {
      const { server, payments } = yield* Fixture
      const seeded = yield* seedTeam(server, ["team_admin"])
      const other = yield* seedTeam(server, ["team_admin"])
      const me = callerOf(seeded.members[0] as SeededMember)
      const body = (team: string) =>
        executionOf({
          from: team,
          to: [{ to: seeded.members[0]?.user, amount_cents: 100, currency_symbol: "USD", invoice_description: "" }],
          pay_now: true,
          signer: me.wallet,
          typed_data: placeholderTypedData(me.wallet, me.wallet),
          signature: placeholderSignature
        })
      assert.deepStrictEqual(yield* refusal(payments.execute(me, body(seeded.teamId))), [
        "TypedDataNotFound",
        "TYPED_DATA_NOT_FOUND",
        ""
      ])
      assert.deepStrictEqual(yield* refusal(payments.execute(me, body(other.teamId))), [
        "InsufficientPermissions",
        "INSUFFICIENT_PERMISSIONS",
        "You are not a member of this team"
      ])
    })
  )
})
