/**
 * A team made with `POST /v2/teams` has its account on chain (decision 0041), over real HTTP on SQLite and anvil: it
 * is owned by the creator, can be funded and pays; with the chain down no team is made (503) and a retry once it is
 * back makes one with its account.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, layer } from "@effect/vitest"
import { EmbeddedChain } from "@svc/adapters/evm"
import { ChainGateway, svcAccountSaltOf } from "@svc/domain/chain"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Context, Effect, Layer } from "effect"
import type { Address } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { addMember, ChainTestServer, call, seedTeam, signIn, startTestServerWith } from "../test/TestServer.ts"

/** A JSON-RPC relay to anvil that can be switched off: while `down`, every request's socket is destroyed. */
const switchableRpc = Effect.acquireRelease(
  Effect.promise(async () => {
    const target = inject("rpcUrl")
    const state = { down: false }
    const server: Server = createServer((req, res) => {
      if (state.down) {
        req.socket.destroy()
        return
      }
      const chunks: Array<Buffer> = []
      req.on("data", (chunk: Buffer) => chunks.push(chunk))
      req.on("end", () => {
        fetch(target, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: Buffer.concat(chunks)
        })
          .then(async (answer) => {
            res.writeHead(answer.status, { "content-type": "application/json" })
            res.end(Buffer.from(await answer.arrayBuffer()))
          })
          .catch(() => req.socket.destroy())
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const { port } = server.address() as AddressInfo
    return { url: `http://127.0.0.1:${port}`, state, server }
  }),
  ({ server }) =>
    Effect.promise(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
    )
)

layer(ChainTestServer.layer, { timeout: 180_000, excludeTestServices: true })("team creation on anvil", (it) => {
  it.effect("a team made with POST /v2/teams has its account, owned by its creator: funded, it pays", () =>
    Effect.gen(function* () {
      const { server, embedded, gateway } = yield* ChainTestServer
      const seeded = yield* seedTeam(server, ["team_admin"])
      const creator = seeded.members[0]!
      const token = yield* signIn(server, creator.account)
      const named = privateKeyToAccount(generatePrivateKey())
      const created = yield* call(server, "POST", "/v2/teams", {
        token,
        body: { name: "Funded", entity_nanoid: seeded.companyId, admin_wallet: named.address }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const team = created.body.data.team_nanoid as string

      const balance = yield* call(server, "GET", `/v2/balance?nanoid=${team}`, { token })
      assert.strictEqual(balance.status, 200, JSON.stringify(balance.body))
      const account = balance.body.data.svc_account_address as Address
      assert.strictEqual(
        account.toLowerCase(),
        (yield* gateway.accountAddress(creator.account.address, svcAccountSaltOf(team))).toLowerCase()
      )
      // The owner is the creator, who asked; the named wallet has not consented to anything yet.
      assert.strictEqual(
        (yield* gateway.ownerOf(account).pipe(Effect.orDie))?.toLowerCase(),
        creator.account.address.toLowerCase()
      )

      yield* embedded.mint(account, 50_000_000n).pipe(Effect.orDie)
      const employee = yield* addMember(
        team as never,
        privateKeyToAccount(generatePrivateKey()).address,
        "team_employee",
        "paid@team.example"
      ).pipe(Effect.provide(server.context))
      const body = {
        from: team,
        to: [{ to: employee, amount_cents: 700, currency_symbol: "USD", invoice_description: "work" }],
        pay_now: true
      }
      const issued = yield* call(server, "POST", "/v2/payments", { token, body })
      assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
      const bundle = issued.body.data as TypedDataBundle
      const signature = yield* Effect.promise(() => creator.account.signTypedData(signableOf(bundle) as never))
      const paid = yield* call(server, "PUT", "/v2/payments", {
        token,
        body: { ...body, signer: creator.account.address, typed_data: bundle.typed_data, signature }
      })
      assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
      assert.strictEqual(yield* gateway.balanceOf(account).pipe(Effect.orDie), 50_000_000n - 7_000_000n)

      // The named admin accepts, then holds team_admin in the API; the owner grants it on chain with a manager invite
      // (a member may be granted the role they hold), after which the new admin's signature pays too.
      const namedToken = yield* signIn(server, named)
      const accepted = yield* call(server, "POST", "/v2/invites/accept", {
        token: namedToken,
        body: { invite_nanoid: created.body.data.admin_invite_nanoid }
      })
      assert.strictEqual(accepted.status, 200, JSON.stringify(accepted.body))
      assert.isFalse(yield* gateway.hasRole(account, "team_admin", named.address).pipe(Effect.orDie))
      const grant = yield* call(server, "POST", "/v2/invites/manager", {
        token,
        body: { nanoid: team, invites: [{ email: "named@team.example", role: "team_admin", wallet: named.address }] }
      })
      assert.strictEqual(grant.status, 200, JSON.stringify(grant.body))
      const roles = grant.body.data as TypedDataBundle & { invites: Array<string> }
      const granted = yield* call(server, "PUT", "/v2/invites/manager", {
        token,
        body: {
          invites: roles.invites,
          signer: creator.account.address,
          typed_data: roles.typed_data,
          signature: yield* Effect.promise(() => creator.account.signTypedData(signableOf(roles) as never))
        }
      })
      assert.strictEqual(granted.status, 200, JSON.stringify(granted.body))
      assert.isTrue(yield* gateway.hasRole(account, "team_admin", named.address).pipe(Effect.orDie))
      const members = yield* call(server, "GET", `/v2/teams/${team}/users`, { token })
      assert.deepStrictEqual(
        (members.body.data.users as Array<{ role: string }>).map((u) => u.role),
        ["team_admin", "team_employee", "team_admin"]
      )
      const byNamed = yield* call(server, "POST", "/v2/payments", { token: namedToken, body })
      assert.strictEqual(byNamed.status, 200, JSON.stringify(byNamed.body))
      const namedBundle = byNamed.body.data as TypedDataBundle
      const paidByNamed = yield* call(server, "PUT", "/v2/payments", {
        token: namedToken,
        body: {
          ...body,
          signer: named.address,
          typed_data: namedBundle.typed_data,
          signature: yield* Effect.promise(() => named.signTypedData(signableOf(namedBundle) as never))
        }
      })
      assert.strictEqual(paidByNamed.status, 200, JSON.stringify(paidByNamed.body))
      assert.strictEqual(yield* gateway.balanceOf(account).pipe(Effect.orDie), 50_000_000n - 14_000_000n)

      // docs/payments.md: `pay_at_time` goes once in the POST body, into every signed entry; the PUT does not take it.
      const later = { ...body, pay_now: false }
      const scheduled = yield* call(server, "POST", "/v2/payments", {
        token,
        body: { ...later, pay_at_time: 1_767_225_600 }
      })
      assert.strictEqual(scheduled.status, 200, JSON.stringify(scheduled.body))
      const intent = scheduled.body.data as TypedDataBundle
      assert.deepStrictEqual(
        (intent.typed_data.data as unknown as { payments: Array<{ payAtTime: string }> }).payments.map(
          (p) => p.payAtTime
        ),
        ["1767225600"]
      )
      const withTime = yield* call(server, "PUT", "/v2/payments", {
        token,
        body: {
          ...later,
          pay_at_time: 1_767_225_600,
          signer: creator.account.address,
          typed_data: intent.typed_data,
          signature: yield* Effect.promise(() => creator.account.signTypedData(signableOf(intent) as never))
        }
      })
      assert.strictEqual(withTime.status, 400, JSON.stringify(withTime.body))
      assert.strictEqual(withTime.body.error_code, "VALIDATION_ERROR")
    })
  )

  it.effect("with the chain down no team is made (503); once it is back, a retry makes one with its account", () =>
    Effect.gen(function* () {
      const { embedded } = yield* ChainTestServer
      const rpc = yield* switchableRpc
      const chain = yield* Layer.build(
        EmbeddedChain.layer({ rpcUrl: rpc.url, chainId: 42161, suite: embedded.suite })
      ).pipe(Effect.orDie)
      const server = yield* startTestServerWith({ chain: Layer.succeedContext(chain) })
      const seeded = yield* seedTeam(server, ["team_admin"])
      const creator = seeded.members[0]!
      const token = yield* signIn(server, creator.account)
      const create = call(server, "POST", "/v2/teams", {
        token,
        body: { name: "Outage", entity_nanoid: seeded.companyId, admin_wallet: creator.account.address }
      })
      const names = Effect.map(call(server, "GET", "/v2/user/teams", { token }), (mine) =>
        (mine.body.data.teams as Array<{ name: string }>).map((t) => t.name)
      )

      rpc.state.down = true
      const refused = yield* create
      assert.strictEqual(refused.status, 503, JSON.stringify(refused.body))
      assert.strictEqual(refused.body.error_code, "SERVICE_UNAVAILABLE")
      assert.deepStrictEqual(yield* names, ["Test Team"])

      rpc.state.down = false
      const created = yield* create
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      assert.deepStrictEqual(yield* names, ["Test Team", "Outage"])
      const balance = yield* call(server, "GET", `/v2/balance?nanoid=${created.body.data.team_nanoid}`, { token })
      const account = balance.body.data.svc_account_address as Address
      const owner = yield* Context.get(chain, ChainGateway).ownerOf(account).pipe(Effect.orDie)
      assert.strictEqual(owner?.toLowerCase(), creator.account.address.toLowerCase())
    }).pipe(Effect.scoped)
  )
})
