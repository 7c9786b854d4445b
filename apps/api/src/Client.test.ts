/**
 * `@svc/client` against a real server settling on anvil (issue 20, item 3): a viem account and an ethers signer each
 * sign in and pay a team member with one call (issued, checked, signed here, executed), the token is reused and renewed
 * by the client itself, every operation answers a promise, an API refusal is an `SvcError` with the API's code, and
 * `verifyWebhook` accepts what Standard Webhooks' own library signs (both secrets during a rotation) and nothing else.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { assert, layer } from "@effect/vitest"
import { createSvcClient, SvcError, verifyWebhook, WebhookVerificationError } from "@svc/client"
import { Effect } from "effect"
import { Wallet } from "ethers"
import { Webhook } from "standardwebhooks"
import { keccak256, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { ChainTestServer, fundedTeam } from "../test/TestServer.ts"

/**
 * The team's employee bills it a flat invoice of `cents` through the client (the contract's payload type: its
 * defaults given); answers the employee's client, the admin's as finance, and the invoice.
 */
const billed = (
  server: ChainTestServer["Service"]["server"],
  t: Effect.Success<ReturnType<typeof fundedTeam>>,
  number: string,
  cents: number
) =>
  Effect.gen(function* () {
    const member = createSvcClient({ baseUrl: server.baseUrl, account: t.employee.account })
    const finance = createSvcClient({ baseUrl: server.baseUrl, account: privateKeyToAccount(t.adminKey) })
    const { data: invoice } = yield* Effect.promise(() =>
      member.invoices.create({
        payload: {
          team_nanoid: t.team,
          invoice_number: number,
          type: "flat",
          flat_type: "service",
          amount_cents: cents,
          currency: "USD",
          invoice_description: "",
          role_description: ""
        }
      } as never)
    )
    return { member, finance, invoice }
  })

layer(ChainTestServer.layer, { timeout: 180_000, excludeTestServices: true })("@svc/client", (it) => {
  it.effect("a viem account and an ethers signer each sign in and pay a member in one call", () =>
    Effect.gen(function* () {
      const { server, gateway } = yield* ChainTestServer
      const t = yield* fundedTeam(100_000_000n)
      for (const account of [privateKeyToAccount(t.adminKey), new Wallet(t.adminKey)]) {
        const svc = createSvcClient({ baseUrl: server.baseUrl, account })
        const paid = yield* Effect.promise(() =>
          svc.payments.pay({
            team: t.team,
            to: [{ to: t.employee.user, amount_cents: 1_234, invoice_description: "sdk" }]
          })
        )
        assert.match(paid.transaction, /^0x[0-9a-f]{64}$/)
        assert.strictEqual(paid.payments.length, 1)
        assert.isFalse(paid.inFlight)
        // Signed in once, by the first call: the same token after.
        const jwt = yield* Effect.promise(() => svc.token())
        assert.strictEqual(yield* Effect.promise(() => svc.token()), jwt)
        const health = yield* Effect.promise(() => svc.health())
        assert.strictEqual(health.data.status, "ok")
        const team = yield* Effect.promise(() => svc.teams.get({ params: { team_nanoid: t.team } }))
        assert.strictEqual(team.data.nanoid, t.team)
      }
      const listed = yield* Effect.promise(() =>
        createSvcClient({ baseUrl: server.baseUrl, account: privateKeyToAccount(t.adminKey) }).payments.query({
          query: { team_nanoid: t.team }
        } as never)
      )
      assert.strictEqual((listed as { data: { items: Array<unknown> } }).data.items.length, 2)
      assert.strictEqual(yield* gateway.balanceOf(t.account).pipe(Effect.orDie), 100_000_000n - 2n * 12_340_000n)
    })
  )

  it.effect("schedules.create issues, checks, signs once and registers a pay schedule; list and cancel answer it", () =>
    Effect.gen(function* () {
      const { server, gateway } = yield* ChainTestServer
      const t = yield* fundedTeam(100_000_000n)
      const svc = createSvcClient({ baseUrl: server.baseUrl, account: privateKeyToAccount(t.adminKey) })
      const firstPayAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000)
      const created = yield* Effect.promise(() =>
        svc.schedules.create({
          team: t.team,
          to: [{ to: t.employee.user, amount_cents: 2_500, invoice_description: "Salary" }],
          interval: "monthly",
          firstPayAt,
          count: 12
        })
      )
      assert.match(created.transaction, /^0x[0-9a-f]{64}$/)
      assert.isFalse(created.inFlight)
      const listed = yield* Effect.promise(() => svc.schedules.list({ query: { team_nanoid: t.team } } as never))
      const item = listed.data.items[0]
      assert.deepStrictEqual(
        [item?.nanoid, item?.next_pay_at, item?.count],
        [created.schedule, firstPayAt.toISOString(), 12]
      )
      const canceled = yield* Effect.promise(() =>
        svc.schedules.cancel({ params: { pay_schedule_nanoid: created.schedule } } as never)
      )
      assert.strictEqual(canceled.data.state, "canceled")
      const onChain = yield* gateway.schedule(t.account, keccak256(toHex(created.schedule))).pipe(Effect.orDie)
      assert.isFalse(onChain?.active)
    })
  )

  it.effect("svc.invoices: a member bills with create, finance pays with invoices.pay, the PDF comes as bytes", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const t = yield* fundedTeam(100_000_000n)
      const { member, finance, invoice } = yield* billed(server, t, "SDK-1", 2_500)
      const paid = yield* Effect.promise(() => finance.invoices.pay({ team: t.team, invoices: [invoice.nanoid] }))
      assert.match(paid.transaction, /^0x[0-9a-f]{64}$/)
      const { data: read } = yield* Effect.promise(() =>
        member.invoices.get({ params: { invoice_nanoid: invoice.nanoid } } as never)
      )
      assert.deepStrictEqual([read.invoice_status, read.paid_cents], ["paid", 2_500])
      const pdf = yield* Effect.promise(() =>
        member.invoices.pdf({ params: { invoice_nanoid: invoice.nanoid } } as never)
      )
      assert.strictEqual(new TextDecoder().decode((pdf as Uint8Array).subarray(0, 5)), "%PDF-")
      const again = yield* Effect.promise(() =>
        finance.invoices.pay({ team: t.team, invoices: [invoice.nanoid] }).then(
          () => undefined,
          (error: unknown) => error
        )
      )
      assert.instanceOf(again, SvcError)
      assert.strictEqual((again as SvcError).errorCode, "INVOICE_NOT_PAYABLE")
    })
  )

  it.effect("schedules.prepare with an invoice entry reads the invoice and checks each instalment pays its share", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const t = yield* fundedTeam(100_000_000n)
      const { finance, invoice } = yield* billed(server, t, "SDK-S", 3_000)
      const request = (count: number) => ({
        team: t.team,
        to: [{ invoice_nanoid: invoice.nanoid }],
        interval: "weekly" as const,
        firstPayAt: new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000),
        count
      })
      const uneven = yield* Effect.promise(() =>
        finance.schedules.prepare(request(7)).then(
          () => undefined,
          (error: unknown) => error
        )
      )
      assert.strictEqual((uneven as SvcError).errorCode, "INVOICE_NOT_PAYABLE")
      const prepared = yield* Effect.promise(() => finance.schedules.prepare(request(3)))
      assert.deepStrictEqual(prepared.payees, [
        {
          to: t.employee.user,
          amount_cents: 1_000,
          invoice_description: "Invoice SDK-S",
          invoice: { nanoid: invoice.nanoid, invoice_number: "SDK-S", left_cents: 3_000 }
        }
      ])
      assert.strictEqual(prepared.instalmentCents, 1_000)
      const created = yield* Effect.promise(() => finance.schedules.submit(prepared))
      const { data: item } = yield* Effect.promise(() =>
        finance.schedules.get({ params: { pay_schedule_nanoid: created.schedule } } as never)
      )
      assert.deepStrictEqual(
        item.recipients.map((r) => [r.invoice_nanoid, r.amount_cents]),
        [[invoice.nanoid, 1_000]]
      )
    })
  )

  it.effect("a member changes their payout address in one call; an admin blocks and unblocks them", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const t = yield* fundedTeam(1_000_000n)
      const payout = privateKeyToAccount(generatePrivateKey())
      const member = createSvcClient({ baseUrl: server.baseUrl, account: t.employee.account })
      const changed = yield* Effect.promise(() =>
        member.payoutAddresses.change({ address: payout.address, addressSigner: payout })
      )
      assert.strictEqual(changed.address, payout.address.toLowerCase())
      const read = yield* Effect.promise(() => member.payoutAddresses.get())
      assert.strictEqual(read.data.paid_to, payout.address.toLowerCase())
      const admin = createSvcClient({ baseUrl: server.baseUrl, account: privateKeyToAccount(t.adminKey) })
      const about = { team_nanoid: t.team, user_nanoid: t.employee.user }
      const blocked = yield* Effect.promise(() =>
        admin.teams.blockMember({ params: about, payload: { blocked: true, reason: "sdk" } })
      )
      assert.isTrue(blocked.data.blocked)
      const unblocked = yield* Effect.promise(() =>
        admin.teams.blockMember({ params: about, payload: { blocked: false } })
      )
      assert.isFalse(unblocked.data.blocked)
    })
  )

  it.effect("an API refusal is an SvcError with its code and status; an unreachable API is NETWORK_ERROR", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const t = yield* fundedTeam(1_000_000n)
      const svc = createSvcClient({ baseUrl: server.baseUrl, account: privateKeyToAccount(t.adminKey) })
      const refused = yield* Effect.promise(() =>
        svc.teams.get({ params: { team_nanoid: "te-AAAAAAAAAAAA" } } as never).then(
          () => undefined,
          (error: unknown) => error
        )
      )
      assert.instanceOf(refused, SvcError)
      assert.strictEqual((refused as SvcError).errorCode, "TEAM_NOT_FOUND")
      assert.strictEqual((refused as SvcError).status, 404)
      const overpaid = yield* Effect.promise(() =>
        svc.payments.pay({ team: t.team, to: [{ to: t.employee.user, amount_cents: 5_000_000 }] }).then(
          () => undefined,
          (error: unknown) => error
        )
      )
      assert.instanceOf(overpaid, SvcError)
      const away = createSvcClient({ baseUrl: "http://127.0.0.1:1", account: privateKeyToAccount(t.adminKey) })
      const unreachable = yield* Effect.promise(() =>
        away.signIn().then(
          () => undefined,
          (error: unknown) => error
        )
      )
      assert.strictEqual((unreachable as SvcError).errorCode, "NETWORK_ERROR")
    })
  )

  it.effect("a 401 to a signed-in client (a token the server no longer takes) signs in again and retries once", () =>
    Effect.gen(function* () {
      const { server } = yield* ChainTestServer
      const t = yield* fundedTeam(1_000_000n)
      // A proxy in front of the server that refuses the first authenticated team read, as a server whose secret
      // changed would; it counts the sign-ins it passes on.
      let refusedOnce = false
      let verifies = 0
      const proxy = createServer((request, response) => {
        const chunks: Array<Buffer> = []
        request.on("data", (chunk: Buffer) => chunks.push(chunk))
        request.on("end", async () => {
          if (request.url === "/v2/auth/verify") verifies++
          if (!refusedOnce && request.url?.startsWith("/v2/teams/")) {
            refusedOnce = true
            response.writeHead(401, { "content-type": "application/json" })
            response.end(JSON.stringify({ success: false, data: "Token refused", error_code: "UNAUTHORIZED" }))
            return
          }
          const body = Buffer.concat(chunks)
          const answer = await fetch(`${server.baseUrl}${request.url}`, {
            method: request.method ?? "GET",
            headers: Object.fromEntries(
              Object.entries(request.headers).filter(([name]) => name !== "host" && name !== "content-length")
            ) as Record<string, string>,
            ...(body.length === 0 ? {} : { body })
          })
          response.writeHead(answer.status, {
            "content-type": answer.headers.get("content-type") ?? "application/json"
          })
          response.end(Buffer.from(await answer.arrayBuffer()))
        })
      })
      yield* Effect.acquireRelease(
        Effect.promise(() => new Promise<void>((listening) => proxy.listen(0, "127.0.0.1", listening))),
        () => Effect.promise(() => new Promise<void>((closed) => proxy.close(() => closed())))
      )
      const port = (proxy.address() as AddressInfo).port
      const svc = createSvcClient({ baseUrl: `http://127.0.0.1:${port}`, account: privateKeyToAccount(t.adminKey) })
      const team = yield* Effect.promise(() => svc.teams.get({ params: { team_nanoid: t.team } }))
      assert.strictEqual(team.data.nanoid, t.team)
      assert.isTrue(refusedOnce)
      assert.strictEqual(verifies, 2)
    }).pipe(Effect.scoped)
  )

  it.effect(
    "verifyWebhook: what Standard Webhooks signs verifies, with either secret during a rotation; nothing else",
    () =>
      Effect.sync(() => {
        const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`
        const next = `whsec_${Buffer.alloc(32, 9).toString("base64")}`
        const body = JSON.stringify({ event_type: "payment.sent", data: { nanoid: "pa-000000000001" } })
        const now = new Date()
        const signature = new Webhook(secret).sign("dl-000000000001", now, body)
        const headers = {
          "webhook-id": "dl-000000000001",
          "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
          "webhook-signature": signature
        }
        assert.deepStrictEqual(verifyWebhook({ secret, body, headers }), JSON.parse(body))
        // During a rotation the service signs with both secrets: each verifies, and a receiver may hold both.
        const both = {
          ...headers,
          "webhook-signature": `${signature} ${new Webhook(next).sign("dl-000000000001", now, body)}`
        }
        assert.deepStrictEqual(verifyWebhook({ secret: next, body, headers: both }), JSON.parse(body))
        assert.deepStrictEqual(verifyWebhook({ secret: [next, secret], body, headers }), JSON.parse(body))
        assert.deepStrictEqual(verifyWebhook({ secret, body, headers: new Headers(headers) }), JSON.parse(body))
        const refused = (options: Parameters<typeof verifyWebhook>[0]) =>
          assert.throws(() => verifyWebhook(options), WebhookVerificationError)
        refused({ secret, body: body.replace("0001", "0002"), headers })
        refused({ secret: next, body, headers })
        refused({ secret, body, headers, now: new Date(now.getTime() + 10 * 60_000) })
        refused({ secret, body, headers: { ...headers, "webhook-signature": "" } })
      })
  )
})
