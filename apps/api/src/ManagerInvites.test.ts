/**
 * Manager invites end to end over real HTTP on SQLite and anvil (SPEC §4.9, DESIGN §5b): the role grants are issued,
 * signed by the team admin with ethers, executed once on chain through the forwarder; a stranger's signature,
 * tampering and replays are refused or answered as for payments; the wallet then pays with its new role.
 */
import { assert, layer } from "@effect/vitest"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Effect } from "effect"
import { Wallet } from "ethers"
import { createPublicClient, type Hex, http, keccak256, parseAbi, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { arbitrum } from "viem/chains"
import { inject } from "vitest"
import { ChainTestServer, call, fundedTeam as fundedTeamOn, seedTeam, signIn } from "../test/TestServer.ts"

const rpcUrl = inject("rpcUrl")
const publicClient = createPublicClient({ chain: arbitrum, transport: http(rpcUrl), pollingInterval: 10 })
const accountAbi = parseAbi(["function hasRole(bytes32 role, address account) view returns (bool)"])

const Fixture = ChainTestServer
const FixtureLayer = ChainTestServer.layer

/** A team whose admin owns its funded svc account, with one employee. */
const fundedTeam = fundedTeamOn(100_000_000n)

const signEthers = (key: Hex, bundle: TypedDataBundle) =>
  Effect.promise(
    () =>
      new Wallet(key).signTypedData(
        bundle.domain,
        JSON.parse(JSON.stringify(bundle.types)),
        JSON.parse(JSON.stringify(bundle.typed_data))
      ) as Promise<Hex>
  )

layer(FixtureLayer, { timeout: 180_000, excludeTestServices: true })("manager invites on anvil", (it) => {
  it.effect("granted on chain once, signed with ethers; the wallet then pays with its role", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture
      const t = yield* fundedTeam
      const finance = privateKeyToAccount(generatePrivateKey())
      const created = yield* call(server, "POST", "/v2/invites/manager", {
        token: t.token,
        body: {
          nanoid: t.team,
          invites: [{ email: "Fin@Example.com", role: "team_finance_admin", wallet: finance.address }]
        }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const bundle = created.body.data as TypedDataBundle & { invites: Array<string> }
      assert.strictEqual(bundle.primary_type, "SetRolesForwardRequest")
      assert.deepStrictEqual(bundle.typed_data.data, [{ role: "team_finance_admin", account: finance.address }])
      assert.strictEqual(bundle.typed_data.to, t.account)
      assert.strictEqual(bundle.invites.length, 1)
      const admin = privateKeyToAccount(t.adminKey)
      const put = (body: Record<string, unknown>) =>
        call(server, "PUT", "/v2/invites/manager", {
          token: t.token,
          body: { invites: bundle.invites, signer: admin.address, typed_data: bundle.typed_data, ...body }
        })

      // A stranger's signature, and a tampered grant, are refused before the chain and leave the request usable.
      const stranger = privateKeyToAccount(generatePrivateKey())
      const strangerSignature = yield* Effect.promise(() => stranger.signTypedData(signableOf(bundle) as never))
      const refused = yield* put({ signature: strangerSignature })
      assert.strictEqual(refused.status, 400, JSON.stringify(refused.body))
      assert.strictEqual(refused.body.error_code, "INVALID_SIGNATURE")
      const signature = yield* signEthers(t.adminKey, bundle)
      const tampered = yield* put({
        signature,
        typed_data: { ...bundle.typed_data, data: [{ role: "team_admin", account: finance.address }] }
      })
      assert.strictEqual(tampered.body.error_code, "TYPED_DATA_MISMATCH", JSON.stringify(tampered.body))
      const otherInvites = yield* put({ signature, invites: ["in-000000000000"] })
      assert.strictEqual(otherInvites.body.error_code, "TYPED_DATA_MISMATCH", JSON.stringify(otherInvites.body))

      const executed = yield* put({ signature })
      assert.strictEqual(executed.status, 200, JSON.stringify(executed.body))
      assert.deepStrictEqual(executed.body.data.invites, bundle.invites)
      const transaction = executed.body.data.transaction as Hex
      const receipt = yield* Effect.promise(() => publicClient.getTransactionReceipt({ hash: transaction }))
      assert.strictEqual(receipt.status, "success")
      const granted = yield* Effect.promise(() =>
        publicClient.readContract({
          address: t.account,
          abi: accountAbi,
          functionName: "hasRole",
          args: [keccak256(toHex("team_finance_admin")), finance.address]
        })
      )
      assert.isTrue(granted)
      // A replay answers the same transaction and changes nothing.
      const replay = yield* put({ signature })
      assert.strictEqual(replay.status, 200)
      assert.strictEqual(replay.body.data.transaction, transaction)

      // The wallet is a member with its role, and the invite is no longer pending.
      const users = yield* call(server, "GET", `/v2/teams/${t.team}/users`, { token: t.token })
      const member = users.body.data.users.find((u: { email: string }) => u.email === "fin@example.com")
      assert.strictEqual(member?.role, "team_finance_admin")
      assert.deepStrictEqual((yield* call(server, "GET", `/v2/invites?nanoid=${t.team}`, { token: t.token })).body, {
        data: []
      })
      const again = yield* call(server, "POST", "/v2/invites/manager", {
        token: t.token,
        body: { nanoid: t.team, invites: [{ email: "fin@example.com", role: "team_viewer", wallet: finance.address }] }
      })
      assert.strictEqual(again.body.error_code, "ROLE_CONFLICT", JSON.stringify(again.body))

      // The new finance admin pays from the team's account: the API and the chain both accept its signature.
      const financeToken = yield* signIn(server, finance)
      const body = {
        from: t.team,
        to: [{ to: t.employee.user, amount_cents: 1500, currency_symbol: "USD", invoice_description: "work" }],
        pay_now: true
      }
      const issued = yield* call(server, "POST", "/v2/payments", { token: financeToken, body })
      assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
      const payment = issued.body.data as TypedDataBundle
      const paid = yield* call(server, "PUT", "/v2/payments", {
        token: financeToken,
        body: {
          ...body,
          signer: finance.address,
          typed_data: payment.typed_data,
          signature: yield* Effect.promise(() => finance.signTypedData(signableOf(payment) as never))
        }
      })
      assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
    })
  )

  it.effect("only a team admin may issue or execute grants; a team needs its account first", () =>
    Effect.gen(function* () {
      const { server } = yield* Fixture
      const t = yield* fundedTeam
      const employeeToken = yield* signIn(server, t.employee.account)
      const body = {
        nanoid: t.team,
        invites: [
          { email: "v@example.com", role: "team_viewer", wallet: privateKeyToAccount(generatePrivateKey()).address }
        ]
      }
      const refused = yield* call(server, "POST", "/v2/invites/manager", { token: employeeToken, body })
      assert.strictEqual(refused.status, 403)
      const created = yield* call(server, "POST", "/v2/invites/manager", { token: t.token, body })
      const bundle = created.body.data as TypedDataBundle & { invites: Array<string> }
      const signature = yield* signEthers(t.adminKey, bundle)
      const executedByEmployee = yield* call(server, "PUT", "/v2/invites/manager", {
        token: employeeToken,
        body: {
          invites: bundle.invites,
          signer: privateKeyToAccount(t.adminKey).address,
          typed_data: bundle.typed_data,
          signature
        }
      })
      assert.strictEqual(executedByEmployee.status, 403, JSON.stringify(executedByEmployee.body))
      const unknownSalt = yield* call(server, "PUT", "/v2/invites/manager", {
        token: t.token,
        body: {
          invites: bundle.invites,
          signer: privateKeyToAccount(t.adminKey).address,
          typed_data: { ...bundle.typed_data, salt: "1" },
          signature
        }
      })
      assert.strictEqual(unknownSalt.status, 404, JSON.stringify(unknownSalt.body))
      // A manager invite's link may be mailed again; once revoked, its grant is not executed.
      const resent = yield* call(server, "POST", `/v2/invites/${bundle.invites[0]}/resend`, { token: t.token })
      assert.strictEqual(resent.status, 200, JSON.stringify(resent.body))
      const revoked = yield* call(server, "DELETE", `/v2/invites/${bundle.invites[0]}`, { token: t.token })
      assert.strictEqual(revoked.status, 200, JSON.stringify(revoked.body))
      const afterRevoke = yield* call(server, "PUT", "/v2/invites/manager", {
        token: t.token,
        body: {
          invites: bundle.invites,
          signer: privateKeyToAccount(t.adminKey).address,
          typed_data: bundle.typed_data,
          signature
        }
      })
      assert.strictEqual(afterRevoke.status, 410, JSON.stringify(afterRevoke.body))
      assert.strictEqual(afterRevoke.body.error_code, "INVITE_REVOKED")
      const bare = yield* seedTeam(server, ["team_admin"])
      const bareToken = yield* signIn(server, bare.members[0]!.account)
      const noAccount = yield* call(server, "POST", "/v2/invites/manager", {
        token: bareToken,
        body: { ...body, nanoid: bare.teamId }
      })
      assert.strictEqual(noAccount.status, 409, JSON.stringify(noAccount.body))
    })
  )
})
