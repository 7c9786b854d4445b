/**
 * Removing a member ends their authority on chain (decision 0020), over real HTTP on SQLite and anvil: a team admin
 * granted by a manager invite, and the account's owner, removed through `DELETE /v2/teams/{team}/member/{user}`,
 * can no longer move the team's money, neither through the API nor by sending a signed request to the forwarder.
 */
import { assert, layer } from "@effect/vitest"
import { EmbeddedChain } from "@svc/adapters/evm"
import { ChainGateway, paymentRequestOf, paymentsRequestOf } from "@svc/domain/chain"
import {
  type PaymentsTypedDataMessage,
  type PaymentTypedDataMessage,
  signableOf,
  type TypedDataBundle
} from "@svc/domain/eip712"
import { TeamRepository } from "@svc/domain/team"
import { Context, Effect, Layer } from "effect"
import { type Address, createPublicClient, http, keccak256, type PrivateKeyAccount, parseAbi, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { arbitrum } from "viem/chains"
import { inject } from "vitest"
import {
  addMember,
  ChainTestServer,
  call,
  seedTeam,
  signIn,
  startTestServerWith,
  type TestServer
} from "../test/TestServer.ts"

const rpcUrl = inject("rpcUrl")
const publicClient = createPublicClient({ chain: arbitrum, transport: http(rpcUrl), pollingInterval: 10 })
const accountAbi = parseAbi([
  "function hasRole(bytes32 role, address account) view returns (bool)",
  "function owner() view returns (address)"
])

const Fixture = ChainTestServer
const FixtureLayer = ChainTestServer.layer

const hasRole = (account: Address, role: string, wallet: Address) =>
  Effect.promise(() =>
    publicClient.readContract({
      address: account,
      abi: accountAbi,
      functionName: "hasRole",
      args: [keccak256(toHex(role)), wallet]
    })
  )

/** A team whose admin owns its account, an employee, and two admins granted on chain by a manager invite. */
const teamOn = (
  server: TestServer,
  gateway: ChainGateway["Service"],
  fund: (account: Address) => Effect.Effect<unknown>
) =>
  Effect.gen(function* () {
    const seeded = yield* seedTeam(server, ["team_employee"])
    const owner = privateKeyToAccount(generatePrivateKey())
    yield* addMember(seeded.teamId, owner.address, "team_admin", `${owner.address}@t.example`).pipe(
      Effect.provide(server.context)
    )
    const { account } = yield* gateway.createAccount(owner.address, keccak256(toHex(seeded.teamId))).pipe(Effect.orDie)
    yield* fund(account)
    yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
      Effect.provide(server.context)
    )
    const ownerToken = yield* signIn(server, owner)
    const granted = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())] as const
    const created = yield* call(server, "POST", "/v2/invites/manager", {
      token: ownerToken,
      body: {
        nanoid: seeded.teamId,
        invites: granted.map((wallet, i) => ({
          email: `admin${i}@example.com`,
          role: "team_admin",
          wallet: wallet.address
        }))
      }
    })
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    const bundle = created.body.data as TypedDataBundle & { invites: Array<string> }
    const executed = yield* call(server, "PUT", "/v2/invites/manager", {
      token: ownerToken,
      body: {
        invites: bundle.invites,
        signer: owner.address,
        typed_data: bundle.typed_data,
        signature: yield* Effect.promise(() => owner.signTypedData(signableOf(bundle) as never))
      }
    })
    assert.strictEqual(executed.status, 200, JSON.stringify(executed.body))
    for (const wallet of granted) assert.isTrue(yield* hasRole(account, "team_admin", wallet.address))
    const users = yield* call(server, "GET", `/v2/teams/${seeded.teamId}/users`, { token: ownerToken })
    const userOf = (email: string) =>
      (users.body.data.users as Array<{ nanoid: string; email: string }>).find((u) => u.email === email.toLowerCase())
        ?.nanoid as string
    return {
      team: seeded.teamId,
      account,
      employee: seeded.members[0]!.user,
      owner: { wallet: owner, token: ownerToken, user: userOf(`${owner.address}@t.example`) },
      admins: yield* Effect.forEach(granted, (wallet, i) =>
        Effect.map(signIn(server, wallet), (token) => ({ wallet, token, user: userOf(`admin${i}@example.com`) }))
      )
    }
  })

/** A funded team on the fixture's server, as `teamOn`. */
const teamWithGrantedAdmins = Effect.gen(function* () {
  const { server, embedded, gateway } = yield* Fixture
  return yield* teamOn(server, gateway, (account) => embedded.mint(account, 100_000_000n).pipe(Effect.orDie))
})

/** A payment to the employee issued by the API for `token` and signed by `wallet`, kept to be sent later. */
const signedPayment = (
  team: string,
  employee: string,
  member: { readonly wallet: PrivateKeyAccount; readonly token: string }
) =>
  Effect.gen(function* () {
    const { server } = yield* Fixture
    const body = {
      from: team,
      to: [{ to: employee, amount_cents: 700, currency_symbol: "USD", invoice_description: "work" }],
      pay_now: true
    }
    const issued = yield* call(server, "POST", "/v2/payments", { token: member.token, body })
    assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
    const bundle = issued.body.data as TypedDataBundle
    const signature = yield* Effect.promise(() => member.wallet.signTypedData(signableOf(bundle) as never))
    return {
      putBody: { ...body, signer: member.wallet.address, typed_data: bundle.typed_data, signature },
      /** The same signed request, sent to the forwarder through the gateway, bypassing the API. */
      direct: Effect.gen(function* () {
        const { gateway } = yield* Fixture
        return yield* bundle.primary_type === "CreatePaymentsForwardRequest"
          ? gateway.executePayments({
              request: paymentsRequestOf(bundle.typed_data as PaymentsTypedDataMessage),
              signature
            })
          : gateway.executePayment({
              request: paymentRequestOf(bundle.typed_data as PaymentTypedDataMessage),
              signature
            })
      })
    }
  })

layer(FixtureLayer, { timeout: 180_000, excludeTestServices: true })("member removal on anvil", (it) => {
  it.effect("a removed owner and a removed granted admin lose their authority on chain", () =>
    Effect.gen(function* () {
      const { server, gateway } = yield* Fixture
      const t = yield* teamWithGrantedAdmins
      const [first, second] = [t.admins[0]!, t.admins[1]!]
      const ownerPayment = yield* signedPayment(t.team, t.employee, t.owner)
      const adminPayment = yield* signedPayment(t.team, t.employee, first)
      const balance = yield* gateway.balanceOf(t.account)

      // The owner is removed by a granted admin: the account has no owner any more.
      const removedOwner = yield* call(server, "DELETE", `/v2/teams/${t.team}/member/${t.owner.user}`, {
        token: first.token
      })
      assert.strictEqual(removedOwner.status, 200, JSON.stringify(removedOwner.body))
      const owner = yield* Effect.promise(() =>
        publicClient.readContract({ address: t.account, abi: accountAbi, functionName: "owner" })
      )
      assert.strictEqual(owner, "0x0000000000000000000000000000000000000000")
      const ownerDirect = yield* Effect.flip(ownerPayment.direct)
      assert.strictEqual(ownerDirect._tag, "SignerNotAuthorised")
      const ownerPut = yield* call(server, "PUT", "/v2/payments", { token: t.owner.token, body: ownerPayment.putBody })
      assert.strictEqual(ownerPut.status, 403, JSON.stringify(ownerPut.body))

      // A granted admin is removed by the other: its role is revoked on chain.
      const removedAdmin = yield* call(server, "DELETE", `/v2/teams/${t.team}/member/${first.user}`, {
        token: second.token
      })
      assert.strictEqual(removedAdmin.status, 200, JSON.stringify(removedAdmin.body))
      assert.isFalse(yield* hasRole(t.account, "team_admin", first.wallet.address))
      assert.isTrue(yield* hasRole(t.account, "team_admin", second.wallet.address))
      const adminDirect = yield* Effect.flip(adminPayment.direct)
      assert.strictEqual(adminDirect._tag, "SignerNotAuthorised")
      const adminPut = yield* call(server, "PUT", "/v2/payments", { token: first.token, body: adminPayment.putBody })
      assert.strictEqual(adminPut.status, 403, JSON.stringify(adminPut.body))
      assert.strictEqual(yield* gateway.balanceOf(t.account), balance)

      // The remaining admin still pays; removing an employee (nothing on chain) needs no transaction and works.
      const stillPays = yield* signedPayment(t.team, t.employee, second)
      const paid = yield* call(server, "PUT", "/v2/payments", { token: second.token, body: stillPays.putBody })
      assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
      const removedEmployee = yield* call(server, "DELETE", `/v2/teams/${t.team}/member/${t.employee}`, {
        token: second.token
      })
      assert.strictEqual(removedEmployee.status, 200, JSON.stringify(removedEmployee.body))
    })
  )
  it.effect("the owner stays while no other team_admin holds the role on chain", () =>
    Effect.gen(function* () {
      const { server, gateway } = yield* Fixture
      const seeded = yield* seedTeam(server, ["team_admin"])
      const owner = privateKeyToAccount(generatePrivateKey())
      yield* addMember(seeded.teamId, owner.address, "team_admin", "owner@example.com").pipe(
        Effect.provide(server.context)
      )
      const { account } = yield* gateway
        .createAccount(owner.address, keccak256(toHex(seeded.teamId)))
        .pipe(Effect.orDie)
      yield* TeamRepository.use((t) => t.update(seeded.teamId, { svc_account: account })).pipe(
        Effect.provide(server.context)
      )
      const adminToken = yield* signIn(server, seeded.members[0]!.account)
      const users = yield* call(server, "GET", `/v2/teams/${seeded.teamId}/users`, { token: adminToken })
      const ownerUser = (users.body.data.users as Array<{ nanoid: string; email: string }>).find(
        (u) => u.email === "owner@example.com"
      )?.nanoid
      const refused = yield* call(server, "DELETE", `/v2/teams/${seeded.teamId}/member/${ownerUser}`, {
        token: adminToken
      })
      assert.strictEqual(refused.status, 409, JSON.stringify(refused.body))
      assert.strictEqual(refused.body.error_code, "LAST_ADMIN")
      const stillOwner = yield* Effect.promise(() =>
        publicClient.readContract({ address: account, abi: accountAbi, functionName: "owner" })
      )
      assert.strictEqual(stillOwner, owner.address)
    })
  )
})

/** A server whose relayer keys are not operators of the forwarder: the chain refuses every revocation they send. */
class Refusing extends Context.Service<
  Refusing,
  { readonly server: TestServer; readonly gateway: ChainGateway["Service"] }
>()("test/revocation/Refusing") {}

const RefusingLayer = Layer.effect(
  Refusing,
  Effect.gen(function* () {
    const deployer = yield* Layer.build(EmbeddedChain.layer({ rpcUrl, chainId: 42161 })).pipe(Effect.orDie)
    const chainContext = yield* Layer.build(
      EmbeddedChain.layer({ rpcUrl, chainId: 42161, suite: Context.get(deployer, EmbeddedChain).suite })
    ).pipe(Effect.orDie)
    const server = yield* startTestServerWith({ chain: Layer.succeedContext(chainContext) })
    return { server, gateway: Context.get(chainContext, ChainGateway) }
  })
)

layer(RefusingLayer, { timeout: 180_000, excludeTestServices: true })("member removal the chain refuses", (it) => {
  it.effect("fails with a clear error and changes nothing; a member with nothing on chain is still removed", () =>
    Effect.gen(function* () {
      const { server, gateway } = yield* Refusing
      const t = yield* teamOn(server, gateway, () => Effect.void)
      const [first, second] = [t.admins[0]!, t.admins[1]!]
      const refused = yield* call(server, "DELETE", `/v2/teams/${t.team}/member/${first.user}`, {
        token: second.token
      })
      assert.strictEqual(refused.body.error_code, "INTERNAL_ERROR", JSON.stringify(refused.body))
      assert.strictEqual(
        refused.body.data,
        "The chain refused to revoke the member's authority (NotOperator); nothing changed"
      )
      assert.isTrue(yield* hasRole(t.account, "team_admin", first.wallet.address))
      const users = yield* call(server, "GET", `/v2/teams/${t.team}/users`, { token: second.token })
      const still = (users.body.data.users as Array<{ nanoid: string; role: string }>).find(
        (u) => u.nanoid === first.user
      )
      assert.strictEqual(still?.role, "team_admin")
      const removedEmployee = yield* call(server, "DELETE", `/v2/teams/${t.team}/member/${t.employee}`, {
        token: second.token
      })
      assert.strictEqual(removedEmployee.status, 200, JSON.stringify(removedEmployee.body))
    })
  )
})
