/**
 * Issue 39 over real HTTP on SQLite, anvil and a real SMTP server: blocking a finance admin ends their authority on
 * chain and in the API, with one `team.member_blocked`; a blocked employee is neither paid nor left intents; a member
 * sets a payout address with both signatures (one of them a contract wallet's, ERC-1271) and is paid there from the
 * next typed data on, told by mail, and reports it from the link; two users with one address make one duplicate pair,
 * announced once to each of their teams, the newer blocked where the team asks.
 */
import { assert, layer } from "@effect/vitest"
import { SmtpMailer } from "@svc/adapters/mail"
import { eventually } from "@svc/adapters/test/Eventually"
import { startTestSmtpServer, type TestSmtpServer, textOf } from "@svc/adapters/test/TestSmtpServer"
import { paymentsRequestOf, svcAccountSaltOf } from "@svc/domain/chain"
import { type PaymentsTypedDataMessage, signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import type { UserId } from "@svc/domain/Ids"
import { Context, Effect, Layer, Redacted } from "effect"
import { type Address, createTestClient, http, type PrivateKeyAccount } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { ChainTestServer, call, fundedTeam, signIn, startChainTestServerWith } from "../test/TestServer.ts"
import { startReceiver } from "../test/WebhookReceiver.ts"
import * as ChainSignatureVerifier from "./ChainSignatureVerifier.ts"

const rpcUrl = inject("rpcUrl")
const units = (cents: number) => BigInt(cents) * 10n ** 4n

class Smtp extends Context.Service<Smtp, TestSmtpServer>()("test/members/Smtp") {}

/** The chain server with mail to a real SMTP server and signatures checked on chain (ERC-1271 wallets sign). */
const FixtureLayer = Layer.effect(
  ChainTestServer,
  Effect.gen(function* () {
    const smtp = yield* Smtp
    return yield* startChainTestServerWith({
      mailer: SmtpMailer.layer({ url: Redacted.make(smtp.url), from: "svc <notices@svc.test>" }),
      signatureVerifier: ChainSignatureVerifier.layer(rpcUrl)
    })
  })
).pipe(Layer.provideMerge(Layer.effect(Smtp, startTestSmtpServer)))

const sign = (account: PrivateKeyAccount, bundle: TypedDataBundle) =>
  Effect.promise(() => account.signTypedData(signableOf(bundle) as never))

const entry = (to: string, amount_cents: number, invoice_description = "work") => ({
  to,
  amount_cents,
  currency_symbol: "USD",
  invoice_description
})

/** POST /v2/payments as `token`: the answer. */
const issue = (token: string, body: Record<string, unknown>) =>
  Effect.flatMap(ChainTestServer, ({ server }) => call(server, "POST", "/v2/payments", { token, body }))

/**
 * Issues `body` (with `issueOnly`, fields PUT does not repeat) as `payer` and signs it; answers the bundle and the PUT
 * body that executes it.
 */
const signedPayment = (
  payer: { token: string; account: PrivateKeyAccount },
  body: Record<string, unknown>,
  issueOnly: Record<string, unknown> = {}
) =>
  Effect.gen(function* () {
    const issued = yield* issue(payer.token, { ...body, ...issueOnly })
    assert.strictEqual(issued.status, 200, JSON.stringify(issued.body))
    const bundle = issued.body.data as TypedDataBundle
    const signature = yield* sign(payer.account, bundle)
    return {
      bundle,
      signature,
      put: { ...body, signer: payer.account.address, typed_data: bundle.typed_data, signature }
    }
  })

/** A webhook endpoint of `team` for `events`, registered by its admin; answers the receiver. */
const endpoint = (team: string, token: string, events: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { server } = yield* ChainTestServer
    const receiver = yield* startReceiver()
    const hook = yield* call(server, "POST", "/v2/webhooks", {
      token,
      body: { team_nanoid: team, url: receiver.url, events, name: "members" }
    })
    assert.strictEqual(hook.status, 200, JSON.stringify(hook.body))
    return receiver
  })

/** Grants `wallet` the team's `team_finance_admin` on chain by a manager invite the admin signs; answers the user. */
const grantFinanceAdmin = (t: { team: string; token: string; admin: PrivateKeyAccount }, wallet: PrivateKeyAccount) =>
  Effect.gen(function* () {
    const { server } = yield* ChainTestServer
    const email = `fin-${wallet.address.slice(2, 10).toLowerCase()}@example.com`
    const created = yield* call(server, "POST", "/v2/invites/manager", {
      token: t.token,
      body: { nanoid: t.team, invites: [{ email, role: "team_finance_admin", wallet: wallet.address }] }
    })
    assert.strictEqual(created.status, 200, JSON.stringify(created.body))
    const bundle = created.body.data as TypedDataBundle & { invites: Array<string> }
    const executed = yield* call(server, "PUT", "/v2/invites/manager", {
      token: t.token,
      body: {
        invites: bundle.invites,
        signer: t.admin.address,
        typed_data: bundle.typed_data,
        signature: yield* sign(t.admin, bundle)
      }
    })
    assert.strictEqual(executed.status, 200, JSON.stringify(executed.body))
    const users = yield* call(server, "GET", `/v2/teams/${t.team}/users`, { token: t.token })
    return (users.body.data.users as Array<{ nanoid: string; email: string }>).find((u) => u.email === email)
      ?.nanoid as UserId
  })

const block = (team: string, user: string, token: string, blocked: boolean, reason?: string) =>
  Effect.flatMap(ChainTestServer, ({ server }) =>
    call(server, "PUT", `/v2/teams/${team}/member/${user}/block`, {
      token,
      body: reason === undefined ? { blocked } : { blocked, reason }
    })
  )

/** The text of the first mail to `email`, once it arrives (the mail worker sends it soon after). */
const mailTo = (email: string) =>
  Effect.flatMap(Smtp, (smtp) =>
    eventually(
      () => {
        const mail = smtp.received.find((m) => m.to.includes(email))
        return mail !== undefined && textOf(mail)
      },
      { what: `a mail to ${email}` }
    )
  )

/** Runtime code answering every call with `magic` as a bytes4 word: an ERC-1271 wallet that accepts (or refuses) all. */
const walletCode = (magic: string) => `0x63${magic}60e01b60005260206000f3` as const

const hasRole = (account: Address, role: string, wallet: Address) =>
  Effect.flatMap(ChainTestServer, ({ gateway }) => Effect.orDie(gateway.hasRole(account, role, wallet)))

/** The users list of `team` as its admin reads it, by user. */
const usersOf = (team: string, token: string) =>
  Effect.gen(function* () {
    const { server } = yield* ChainTestServer
    const listed = yield* call(server, "GET", `/v2/teams/${team}/users`, { token })
    assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
    // biome-ignore lint/suspicious/noExplicitAny: the list as JSON
    return new Map((listed.body.data.users as Array<any>).map((u) => [u.nanoid as string, u]))
  })

layer(FixtureLayer, { timeout: 240_000, excludeTestServices: true })("members (issue 39) on anvil", (it) => {
  it.effect("blocking a finance admin revokes their role on chain, the API refuses them, one event each way", () =>
    Effect.gen(function* () {
      const { server, gateway } = yield* ChainTestServer
      const t = yield* fundedTeam(units(10_000))
      const finance = privateKeyToAccount(generatePrivateKey())
      const financeUser = yield* grantFinanceAdmin(t, finance)
      assert.isTrue(yield* hasRole(t.account, "team_finance_admin", finance.address))
      const financeToken = yield* signIn(server, finance)
      const body = { from: t.team, to: [entry(t.employee.user, 700)], pay_now: true }
      // While they may pay, the finance admin signs a payment, to send straight to the forwarder afterwards.
      const before = yield* signedPayment({ token: financeToken, account: finance }, body)
      const receiver = yield* endpoint(t.team, t.token, ["team.member_blocked"])

      const blocked = yield* block(t.team, financeUser, t.token, true, "Paid twice under two accounts")
      assert.strictEqual(blocked.status, 200, JSON.stringify(blocked.body))
      assert.deepInclude(blocked.body.data, { blocked: true, reason: "Paid twice under two accounts" })
      assert.isFalse(yield* hasRole(t.account, "team_finance_admin", finance.address))
      // Sent straight to the forwarder, bypassing the API: the contract refuses the signer.
      const direct = yield* Effect.flip(
        gateway.executePayments({
          request: paymentsRequestOf(before.bundle.typed_data as PaymentsTypedDataMessage),
          signature: before.signature
        })
      )
      assert.strictEqual(direct._tag, "SignerNotAuthorised")
      // The API: they can no longer pay for the team, and no one can pay them.
      const put = yield* call(server, "PUT", "/v2/payments", { token: financeToken, body: before.put })
      assert.deepStrictEqual([put.status, put.body.error_code], [403, "INSUFFICIENT_PERMISSIONS"])
      assert.strictEqual(put.body.data, "You are blocked in this team")
      assert.strictEqual((yield* issue(financeToken, body)).status, 403)
      const paid = yield* issue(t.token, { from: t.team, to: [entry(financeUser, 100)], pay_now: true })
      assert.deepStrictEqual([paid.status, paid.body.error_code], [409, "MEMBER_BLOCKED"])
      const listed = (yield* usersOf(t.team, t.token)).get(financeUser)
      assert.deepInclude(listed, { blocked: true, blocked_since: blocked.body.data.blocked_since, payable: false })
      // Asking again changes nothing; unblocking gives no role back.
      assert.strictEqual((yield* block(t.team, financeUser, t.token, true)).status, 200)
      const unblocked = yield* block(t.team, financeUser, t.token, false)
      assert.deepInclude(unblocked.body.data, { blocked: false, blocked_since: null })
      assert.isFalse(yield* hasRole(t.account, "team_finance_admin", finance.address))
      const events = (yield* receiver.waitFor(2)).map((r) => JSON.parse(r.body).data)
      assert.deepStrictEqual(events.map((e) => [e.user_nanoid, e.blocked, e.role]).sort(), [
        [financeUser, false, "team_finance_admin"],
        [financeUser, true, "team_finance_admin"]
      ])
      assert.strictEqual(receiver.received.length, 2)
    })
  )

  it.effect(
    "a blocked employee's intents are canceled; they are not paid, by new or earlier typed data, until unblocked",
    () =>
      Effect.gen(function* () {
        const { server, gateway } = yield* ChainTestServer
        const t = yield* fundedTeam(units(10_000))
        const admin = { token: t.token, account: t.admin }
        const later = Math.floor(Date.now() / 1000) + 3600
        const intent = yield* signedPayment(
          admin,
          { from: t.team, to: [entry(t.employee.user, 300, "later")], pay_now: false },
          { pay_at_time: later }
        )
        const registered = yield* call(server, "PUT", "/v2/payments", { token: t.token, body: intent.put })
        assert.strictEqual(registered.status, 200, JSON.stringify(registered.body))
        const now = { from: t.team, to: [entry(t.employee.user, 400)], pay_now: true }
        const earlier = yield* signedPayment(admin, now)
        assert.strictEqual((yield* block(t.team, t.employee.user, t.token, true)).status, 200)
        const intents = yield* call(server, "GET", `/v2/payments?team_nanoid=${t.team}&state=all`, { token: t.token })
        assert.deepStrictEqual(
          (intents.body.data.items as Array<{ payment: { state?: string } }>).map((i) => i.payment.state),
          ["canceled"]
        )
        const refused = yield* call(server, "PUT", "/v2/payments", { token: t.token, body: earlier.put })
        assert.deepStrictEqual([refused.status, refused.body.error_code], [409, "MEMBER_BLOCKED"])
        assert.strictEqual((yield* issue(t.token, now)).body.error_code, "MEMBER_BLOCKED")
        assert.strictEqual((yield* block(t.team, t.employee.user, t.token, false)).status, 200)
        const paid = yield* call(server, "PUT", "/v2/payments", { token: t.token, body: earlier.put })
        assert.strictEqual(paid.status, 200, JSON.stringify(paid.body))
        const account = yield* Effect.orDie(
          gateway.accountAddress(t.employee.account.address, svcAccountSaltOf(t.employee.user))
        )
        assert.strictEqual(yield* Effect.orDie(gateway.balanceOf(account)), units(400))
      })
  )

  it.effect(
    "a payout address set with both signatures is paid from the next typed data on, announced and reportable",
    () =>
      Effect.gen(function* () {
        const { server, gateway } = yield* ChainTestServer
        const t = yield* fundedTeam(units(10_000))
        const member = t.employee
        const token = yield* signIn(server, member.account)
        const payout = privateKeyToAccount(generatePrivateKey())
        const receiver = yield* endpoint(t.team, t.token, ["withdraw_account.updated"])
        const admin = { token: t.token, account: t.admin }
        const earlier = yield* signedPayment(admin, { from: t.team, to: [entry(member.user, 500)], pay_now: true })

        const proof = yield* call(server, "POST", "/v2/user/withdraw_account", {
          token,
          body: { address: payout.address }
        })
        assert.strictEqual(proof.status, 200, JSON.stringify(proof.body))
        const bundle = proof.body.data as TypedDataBundle
        assert.strictEqual(bundle.primary_type, "SetPayoutAddressRequest")
        assert.deepStrictEqual(bundle.typed_data.data, { user: member.user, payoutAddress: payout.address })
        const signatures = {
          address_signature: yield* sign(payout, bundle),
          wallet_signature: yield* sign(member.account, bundle)
        }
        const set = (changes: Record<string, unknown>) =>
          call(server, "PUT", "/v2/user/withdraw_account", {
            token,
            body: { address: payout.address, typed_data: bundle.typed_data, ...signatures, ...changes }
          })
        // An access token alone: whoever holds it cannot sign as the member's wallet, nor as an address they do not hold.
        const thief = privateKeyToAccount(generatePrivateKey())
        for (const forged of [
          { wallet_signature: yield* sign(thief, bundle) },
          { address_signature: yield* sign(thief, bundle) }
        ]) {
          const refused = yield* set(forged)
          assert.deepStrictEqual([refused.status, refused.body.error_code], [400, "INVALID_SIGNATURE"])
        }
        const done = yield* set({})
        assert.strictEqual(done.status, 200, JSON.stringify(done.body))
        assert.strictEqual(done.body.data.address, payout.address.toLowerCase())
        assert.strictEqual(done.body.data.paid_to, payout.address.toLowerCase())
        assert.strictEqual((yield* set({})).body.error_code, "TYPED_DATA_NOT_FOUND")

        // Typed data issued before keeps its address; the next goes to the payout address.
        const account = yield* Effect.orDie(
          gateway.accountAddress(member.account.address, svcAccountSaltOf(member.user))
        )
        assert.strictEqual(
          (yield* call(server, "PUT", "/v2/payments", { token: t.token, body: earlier.put })).status,
          200
        )
        const next = yield* signedPayment(admin, { from: t.team, to: [entry(member.user, 800)], pay_now: true })
        const [entryOf] = (next.bundle.typed_data as PaymentsTypedDataMessage).data.payments
        assert.strictEqual(entryOf?.recipient, payout.address)
        assert.strictEqual((yield* call(server, "PUT", "/v2/payments", { token: t.token, body: next.put })).status, 200)
        assert.strictEqual(yield* Effect.orDie(gateway.balanceOf(account)), units(500))
        assert.strictEqual(yield* Effect.orDie(gateway.balanceOf(payout.address)), units(800))
        assert.strictEqual(
          (yield* usersOf(t.team, t.token)).get(member.user).payout_address,
          payout.address.toLowerCase()
        )

        // The member's notice, and its link: the page changes nothing; its report puts the svc account back.
        const mail = yield* mailTo((yield* usersOf(t.team, t.token)).get(member.user).email)
        const [, change, reportToken] =
          /withdraw-account\/report\?change=(wa-[\w-]+)&token=([0-9a-f]{64})/.exec(mail) ?? []
        assert.strictEqual(change, done.body.data.change_nanoid)
        const page = yield* call(server, "GET", `/withdraw-account/report?change=${change}&token=${reportToken}`)
        assert.strictEqual(page.status, 200)
        assert.include(String(page.body), "Report: this was not me")
        const report = { change_nanoid: change, token: reportToken }
        const reported = yield* call(server, "POST", "/v2/user/withdraw_account/report", { body: report })
        assert.deepStrictEqual(reported.body.data, { change_nanoid: change, reported: true, address: null })
        const again = yield* call(server, "POST", "/v2/user/withdraw_account/report", { body: report })
        assert.deepStrictEqual([again.status, again.body.error_code], [404, "PAYOUT_REPORT_INVALID"])
        const now = yield* call(server, "GET", "/v2/user/withdraw_account", { token })
        assert.deepInclude(now.body.data, { address: null, paid_to: account })
        const events = (yield* receiver.waitFor(2)).map((r) => JSON.parse(r.body).data)
        assert.deepStrictEqual(events.map((e) => [e.nanoid, e.change, e.address]).sort(), [
          [change, "reported", null],
          [change, "set", payout.address.toLowerCase()]
        ])
      })
  )

  it.effect("two users with one payout address make one duplicate pair, announced once to each of their teams", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const [t1, t2] = [yield* fundedTeam(units(100)), yield* fundedTeam(units(100))]
      const settings = yield* call(server, "PUT", `/v2/teams/${t2.team}/settings`, {
        token: t2.token,
        body: { block_duplicates: true }
      })
      assert.strictEqual(settings.body.data.block_duplicates, true)
      const events = ["withdraw_account.duplicated_detected", "team.member_blocked"]
      const [r1, r2] = [yield* endpoint(t1.team, t1.token, events), yield* endpoint(t2.team, t2.token, events)]
      // A contract wallet (ERC-1271) that accepts any signature, and one that refuses them.
      const anvil = createTestClient({ mode: "anvil", transport: http(rpcUrl) })
      const [wallet, refusing] = [generatePrivateKey(), generatePrivateKey()].map((k) => privateKeyToAccount(k).address)
      yield* Effect.promise(() => anvil.setCode({ address: wallet as Address, bytecode: walletCode("1626ba7e") }))
      yield* Effect.promise(() => anvil.setCode({ address: refusing as Address, bytecode: walletCode("ffffffff") }))
      const anySignature = `0x${"ab".repeat(65)}`
      /** Sets `member`'s payout address to `address`, signed by `holder` (else any bytes: a contract wallet judges). */
      const setFor = (member: typeof t1.employee, address: string, holder?: PrivateKeyAccount) =>
        Effect.gen(function* () {
          const token = yield* signIn(server, member.account)
          const proof = yield* call(server, "POST", "/v2/user/withdraw_account", { token, body: { address } })
          const bundle = proof.body.data as TypedDataBundle
          return yield* call(server, "PUT", "/v2/user/withdraw_account", {
            token,
            body: {
              address,
              typed_data: bundle.typed_data,
              address_signature: holder === undefined ? anySignature : yield* sign(holder, bundle),
              wallet_signature: yield* sign(member.account, bundle)
            }
          })
        })
      const refused = yield* setFor(t1.employee, refusing as string)
      assert.deepStrictEqual([refused.status, refused.body.error_code], [400, "INVALID_SIGNATURE"])
      assert.strictEqual((yield* setFor(t1.employee, wallet as string)).status, 200)
      assert.strictEqual((yield* setFor(t2.employee, wallet as string)).status, 200)
      assert.strictEqual((yield* setFor(t1.employee, wallet as string)).status, 200)
      const [older, newer] = [t1.employee.user, t2.employee.user]
      const kinds = (received: ReadonlyArray<{ body: string }>) =>
        received.map((r) => JSON.parse(r.body)).map((e) => [e.event_type, e.data.user_nanoids ?? e.data.user_nanoid])
      assert.deepStrictEqual(kinds(yield* r1.waitFor(1)), [["withdraw_account.duplicated_detected", [older, newer]]])
      assert.deepStrictEqual(kinds(yield* r2.waitFor(2)).sort(), [
        ["team.member_blocked", newer],
        ["withdraw_account.duplicated_detected", [older, newer]]
      ])
      assert.deepInclude((yield* usersOf(t1.team, t1.token)).get(older), { duplicate_of: [newer], blocked: false })
      assert.deepInclude((yield* usersOf(t2.team, t2.token)).get(newer), { duplicate_of: [older], blocked: true })
      // A new wallet whose first sign-in is another's payout address is a duplicate too, found at sign-in.
      const payout = privateKeyToAccount(generatePrivateKey())
      assert.strictEqual((yield* setFor(t1.employee, payout.address, payout)).status, 200)
      yield* signIn(server, payout)
      const found = kinds(yield* r1.waitFor(2))
      assert.strictEqual(found.filter(([kind]) => kind === "withdraw_account.duplicated_detected").length, 2)
      // The second pair is the member and the new user; setting the contract wallet again made none.
      assert.strictEqual(found[1]?.[1]?.[0], older)
      assert.notInclude([older, newer], found[1]?.[1]?.[1])
    })
  )
})
