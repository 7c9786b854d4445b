/**
 * `@svc/client` as the web console uses it (issue 40), against a real server settling on anvil: a browser wallet
 * (an EIP-1193 provider, here backed by a viem account) signs in and pays in two steps, prepared and then submitted,
 * after switching to the chain the typed data names; manager roles are granted the same way; a session kept in a
 * store is used without a new signature, renewed quietly in its last hour, and forgotten on sign-out.
 */
import { assert, layer } from "@effect/vitest"
import { createSvcClient, type Eip1193Provider, eip1193Account, type SessionStore } from "@svc/client"
import { Effect } from "effect"
import { SignJWT } from "jose"
import type { Hex, PrivateKeyAccount } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { ChainTestServer, fundedTeam } from "../test/TestServer.ts"

/** A wallet in a page, as EIP-1193 describes it, on chain 1 until asked to switch; it records what it was asked. */
const walletOf = (account: PrivateKeyAccount) => {
  const asked: Array<string> = []
  let chainId = 1
  const provider = {
    request: async ({ method, params }: { method: string; params?: ReadonlyArray<unknown> }) => {
      asked.push(method)
      if (method === "eth_accounts" || method === "eth_requestAccounts") return [account.address]
      if (method === "eth_chainId") return `0x${chainId.toString(16)}`
      if (method === "wallet_switchEthereumChain") {
        chainId = Number((params?.[0] as { chainId?: string } | undefined)?.chainId)
        return null
      }
      if (method === "personal_sign") return account.signMessage({ message: { raw: params?.[0] as Hex } })
      if (method === "eth_signTypedData_v4") {
        const { EIP712Domain: _, ...types } = JSON.parse(params?.[1] as string).types
        const typed = JSON.parse(params?.[1] as string)
        return account.signTypedData({ ...typed, types })
      }
      throw Object.assign(new Error(`unsupported ${method}`), { code: 4200 })
    }
  }
  return { provider: provider as unknown as Eip1193Provider, asked, chainId: () => chainId }
}

/** A store in memory, as a page's `sessionStorage` would keep the token. */
const memoryStore = (): SessionStore & { value: string | undefined } => {
  const store = {
    value: undefined as string | undefined,
    load: () => store.value,
    save: (jwt: string | undefined) => {
      store.value = jwt
    }
  }
  return store
}

const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString())

layer(ChainTestServer.layer, { timeout: 180_000, excludeTestServices: true })("@svc/client in a browser", (it) => {
  it.effect("an EIP-1193 wallet signs in, pays after a prepared look (a batch, an e-mail), grants a manager role", () =>
    Effect.gen(function* () {
      const { server, gateway } = yield* ChainTestServer
      const t = yield* fundedTeam(100_000_000n)
      const wallet = walletOf(t.admin)
      const svc = createSvcClient({
        baseUrl: server.baseUrl,
        account: eip1193Account(wallet.provider, t.admin.address)
      })
      const prepared = yield* Effect.promise(() =>
        svc.payments.prepare({
          team: t.team,
          to: [
            { to: t.employee.user, amount_cents: 1_000, invoice_description: "one" },
            { to: t.employee.user, amount_cents: 250 }
          ]
        })
      )
      assert.strictEqual(prepared.totalCents, 1_250)
      assert.strictEqual(prepared.bundle.typed_data.from.toLowerCase(), t.admin.address.toLowerCase())
      // Issued and checked: nothing signed yet but the sign-in.
      assert.notInclude(wallet.asked, "eth_signTypedData_v4")
      assert.include(wallet.asked, "personal_sign")
      const paid = yield* Effect.promise(() => svc.payments.submit(prepared))
      assert.match(paid.transaction, /^0x[0-9a-f]{64}$/)
      assert.strictEqual(paid.payments.length, 2)
      assert.strictEqual(wallet.chainId(), 42161, "the wallet was switched to the typed data's chain")
      assert.strictEqual(yield* gateway.balanceOf(t.account).pipe(Effect.orDie), 100_000_000n - 12_500_000n)

      // An instant payment to an e-mail, in two steps as well.
      const instant = yield* Effect.promise(() =>
        svc.payments.prepareInstant({ team: t.team, email: "outside@example.com", amount_cents: 500 })
      )
      assert.strictEqual(instant.kind, "instant")
      assert.strictEqual(instant.totalCents, 500)
      const sent = yield* Effect.promise(() => svc.payments.submit(instant))
      assert.match(sent.transaction, /^0x[0-9a-f]{64}$/)
      assert.strictEqual(
        yield* gateway.balanceOf(t.account).pipe(Effect.orDie),
        100_000_000n - 12_500_000n - 5_000_000n
      )

      const viewer = privateKeyToAccount(generatePrivateKey())
      const grant = yield* Effect.promise(() =>
        svc.invites.prepareManagers({
          team: t.team,
          invites: [{ email: "viewer@example.com", role: "team_viewer", wallet: viewer.address }]
        })
      )
      assert.strictEqual(grant.invites.length, 1)
      const granted = yield* Effect.promise(() => svc.invites.submitManagers(grant))
      assert.match(granted.transaction, /^0x[0-9a-f]{64}$/)
      const users = yield* Effect.promise(() =>
        svc.teams.users({ params: { team_nanoid: t.team }, query: {} } as never)
      )
      const joined = users.data.users.find((user) => user.email === "viewer@example.com")
      assert.strictEqual(joined?.role, "team_viewer")
    })
  )

  it.effect("a kept session is used without a signature, renewed quietly in its last hour, forgotten on sign-out", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const account = privateKeyToAccount(generatePrivateKey())
      let signatures = 0
      const counted = {
        ...account,
        signMessage: (args: { message: string }) => {
          signatures++
          return account.signMessage(args)
        }
      }
      const store = memoryStore()
      const first = createSvcClient({ baseUrl: server.baseUrl, account: counted, session: store })
      yield* Effect.promise(() => first.teams.listMine())
      assert.strictEqual(signatures, 1)
      const kept = store.value
      assert.isString(kept)

      // A page loaded again: the kept token serves, no signature.
      const second = createSvcClient({ baseUrl: server.baseUrl, account: counted, session: store })
      yield* Effect.promise(() => second.teams.listMine())
      assert.strictEqual(yield* Effect.promise(() => second.token()), kept)
      assert.strictEqual(signatures, 1)

      // A token in its last hour (signed in 23.5 hours ago): renewed by the server, still no signature.
      const claims = claimsOf(kept!)
      const now = Math.floor(Date.now() / 1000)
      store.value = yield* Effect.promise(() =>
        new SignJWT({ wallet: claims.wallet, auth_time: now - 84_600 })
          .setProtectedHeader({ alg: "HS256", typ: "JWT", kid: claimsKid(kept!) })
          .setSubject(claims.sub)
          .setIssuer("svc")
          .setIssuedAt(now - 84_600)
          .setExpirationTime(now + 1_800)
          .setJti("ending")
          .sign(new TextEncoder().encode(server.jwtSecret))
      )
      const third = createSvcClient({ baseUrl: server.baseUrl, account: counted, session: store })
      const renewed = yield* Effect.promise(() => third.token())
      assert.notStrictEqual(renewed, kept)
      assert.strictEqual(claimsOf(renewed).sub, claims.sub)
      assert.strictEqual(claimsOf(renewed).auth_time, now - 84_600)
      assert.isAbove(claimsOf(renewed).exp, now + 80_000)
      assert.strictEqual(store.value, renewed)
      assert.strictEqual(signatures, 1)

      third.signOut()
      assert.isUndefined(store.value)
      yield* Effect.promise(() => third.teams.listMine())
      assert.strictEqual(signatures, 2)
    })
  )
})

/** The key id a token of this server carries (its header's `kid`). */
const claimsKid = (jwt: string): string =>
  JSON.parse(Buffer.from(jwt.split(".")[0] ?? "", "base64url").toString()).kid as string
