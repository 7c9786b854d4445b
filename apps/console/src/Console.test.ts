/**
 * The console in a real browser (issue 40): Debian's Chromium driven by playwright-core, a wallet injected into each
 * page that signs in Node with a test key, and a real API server on anvil serving the console at `/console`. A person
 * signs in, pays two members from the form and one from a CSV and sees them complete and the balance drop by their
 * sum; schedules weekly pay with a member's invoice paid in instalments; invites a member; adds a webhook endpoint
 * and sees its test delivery with the receiver's answer, as text; blocks and unblocks a member, and sets a payout address signed by two accounts of the member's wallet; each role sees only
 * what it may do; a wallet that refuses to sign pays nothing; a member bills the team and the admin pays the invoice
 * by its id; every page passes axe-core with no serious or critical violation; the payments page fits 375 px;
 * `/console` answers with its security headers and no inline script.
 */
import { afterAll, assert, layer } from "@effect/vitest"
import { signIn as apiSignIn, call } from "@svc/api/TestServer"
import { startReceiver } from "@svc/api/WebhookReceiver"
import { Effect } from "effect"
import type { Browser, Page } from "playwright-core"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { type AxeFinding, audit, pageWithWallet, serious, type TestWallet } from "../test/ConsoleBrowser.ts"
import { ConsoleFixture } from "../test/ConsoleFixture.ts"
import { fillPayee, navigationLinks, openPage, signIn, visible } from "../test/Steps.ts"

/** axe-core's findings on each page the tests visited, by page: the figures the issue asks for. */
const audited = new Map<string, ReadonlyArray<AxeFinding>>()
afterAll(() => {
  const lines = [...audited].map(
    ([name, all]) =>
      `${name}: ${all.length}${all.length === 0 ? "" : ` [${all.map((f) => `${f.id}/${f.impact}`).join(", ")}]`} (${serious(all).length} serious or critical)`
  )
  console.info(`axe-core violations on ${audited.size} pages: ${lines.join("; ")}`)
})

/** Audits the page as it is now, and fails on a serious or critical violation. */
const accessible = async (page: Page, name: string) => {
  const findings = await audit(page)
  audited.set(name, findings)
  assert.deepStrictEqual(serious(findings), [], `${name}: ${JSON.stringify(serious(findings), null, 1)}`)
}

/** A page with `wallet`, failing the test on a script error, a policy violation or an alert (an injected script). */
const openWith = async (browser: Browser, wallet: TestWallet, viewport?: { width: number; height: number }) => {
  const opened = await pageWithWallet(browser, wallet, viewport)
  const problems: Array<string> = []
  opened.page.on("pageerror", (error) => problems.push(`page error: ${error.message}`))
  opened.page.on("console", (message) => {
    if (/Content.Security.Policy|Trusted ?Type/i.test(message.text())) problems.push(`policy: ${message.text()}`)
  })
  opened.page.on("dialog", (dialog) => {
    problems.push(`a dialog opened: ${dialog.message()}`)
    void dialog.dismiss()
  })
  return { ...opened, problems }
}

const balanceText = (page: Page) => page.getByTestId("balance").textContent()

layer(ConsoleFixture.layer, { timeout: 180_000, excludeTestServices: true })("the console in a browser", (it) => {
  const run = (body: (f: ConsoleFixture["Service"]) => Promise<void>) =>
    Effect.gen(function* () {
      const f = yield* ConsoleFixture
      yield* Effect.promise(() => body(f))
    })

  it.effect("/console is served from the API's origin with its CSP and frame rules, and no inline script", () =>
    run(async ({ baseUrl, team }) => {
      for (const path of ["/console", `/console/${team.team}/payments?state=complete`]) {
        const response = await fetch(`${baseUrl}${path}`)
        assert.strictEqual(response.status, 200, path)
        const csp = response.headers.get("content-security-policy") ?? ""
        assert.include(csp, "default-src 'none'")
        assert.include(csp, "script-src 'self'")
        assert.notInclude(csp, "unsafe-inline")
        assert.include(csp, "frame-ancestors 'none'")
        assert.strictEqual(response.headers.get("x-frame-options"), "DENY")
        assert.strictEqual(response.headers.get("x-content-type-options"), "nosniff")
        const html = await response.text()
        const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)]
        assert.isAbove(scripts.length, 0)
        for (const [, attributes, body] of scripts) {
          assert.match(attributes ?? "", /\bsrc="\/console\/assets\/[^"]+\.js"/)
          assert.strictEqual(body?.trim(), "")
        }
      }
      assert.strictEqual((await fetch(`${baseUrl}/console/assets/missing.js`)).status, 404)
      // The app's script, compressed as asked and cached for good (its name carries its hash).
      const page = await (await fetch(`${baseUrl}/console`)).text()
      const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(page)?.[1] ?? ""
      for (const coding of ["br", "gzip"]) {
        const asset = await fetch(`${baseUrl}${script}`, { headers: { "accept-encoding": coding } })
        assert.strictEqual(asset.status, 200)
        assert.strictEqual(asset.headers.get("content-encoding"), coding)
        assert.include(asset.headers.get("cache-control") ?? "", "immutable")
        assert.include(await asset.text(), "createRoot")
      }
    })
  )

  it.effect(
    "an admin signs in, pays two members from the form and one from a CSV; they complete, the balance drops by the sum",
    () =>
      run(async ({ baseUrl, team, chain, browser }) => {
        const { page, problems } = await openWith(browser, { account: team.admin.account })
        await page.goto(`${baseUrl}/console`)
        await visible(page.getByRole("button", { name: "Connect wallet" }))
        await accessible(page, "sign-in")
        await signIn(page, baseUrl)
        await visible(page.getByRole("heading", { name: "Balance" }))
        await page.getByTestId("balance").getByText("$").waitFor()
        const before = await balanceText(page)
        await accessible(page, "overview")
        assert.deepStrictEqual(await navigationLinks(page), [
          "Overview",
          "Members",
          "Payments",
          "Invoices",
          "Pay schedules",
          "Webhooks",
          "Deposits",
          "Settings"
        ])

        // Two members from the form.
        await openPage(page, "Payments")
        await page.getByRole("button", { name: "New payment" }).click()
        await fillPayee(page, 0, {
          name: team.ada.name,
          email: "ada@example.com",
          amount: "1200.00",
          description: "Salary, March"
        })
        await page.getByRole("button", { name: "Add recipient" }).click()
        await fillPayee(page, 1, {
          name: team.grace.name,
          email: "grace@example.com",
          amount: "850.50",
          description: "Design, March"
        })
        await accessible(page, "new payment")
        await page.getByRole("button", { name: "Review" }).click()
        await visible(page.getByRole("heading", { name: "What your wallet will sign" }))
        await visible(page.getByText("Checked: 2 payments of exactly the amounts above, $2,050.50 in all"))
        await accessible(page, "payment review")
        await page.getByRole("button", { name: "Sign and pay" }).click()
        await visible(page.getByRole("heading", { name: "Payment sent" }))
        await page.getByRole("row").filter({ hasText: "Complete" }).nth(1).waitFor()
        await accessible(page, "payment sent")

        // One member from a CSV in the command line's format.
        await openPage(page, "Payments")
        await page.getByRole("button", { name: "New payment" }).click()
        await page.getByRole("button", { name: "CSV file" }).click()
        await page.getByLabel("CSV file").setInputFiles({
          name: "payroll.csv",
          mimeType: "text/csv",
          buffer: Buffer.from(`recipient,amount,description\n${team.alan.user},300.25,"Consulting, March"\n`)
        })
        await visible(page.getByText("payroll.csv: 1 payee, reviewed next."))
        await accessible(page, "new payment from a CSV")
        await page.getByRole("button", { name: "Review" }).click()
        await page.getByRole("button", { name: "Sign and pay" }).click()
        await visible(page.getByRole("heading", { name: "Payment sent" }))

        // All three complete; the balance dropped by their sum, here and on chain.
        await openPage(page, "Payments")
        await page.getByRole("row").filter({ hasText: "Complete" }).nth(2).waitFor()
        assert.strictEqual(await page.getByRole("row").filter({ hasText: "In flight" }).count(), 0)
        await accessible(page, "payments")
        // The README's picture of this page: `SVC_CONSOLE_SCREENSHOT=docs/console-payments.png` (see apps/console/README.md).
        if (process.env.SVC_CONSOLE_SCREENSHOT !== undefined) {
          await page.setViewportSize({ width: 1200, height: 560 })
          await page.screenshot({ path: process.env.SVC_CONSOLE_SCREENSHOT })
          await page.setViewportSize({ width: 1280, height: 860 })
        }
        await page.getByRole("row").nth(1).getByRole("link").click()
        await visible(page.getByRole("heading", { name: /^Payment to / }))
        await visible(page.getByRole("term").filter({ hasText: "Transaction" }))
        await accessible(page, "payment detail")
        await openPage(page, "Overview", "Test Team")
        await page.getByTestId("balance").getByText("$997,649.25").waitFor()
        assert.strictEqual(before, "$1,000,000.00")
        assert.strictEqual(
          await chain.gateway.balanceOf(team.account as never).pipe(Effect.runPromise),
          997_649_250_000n
        )
        assert.deepStrictEqual(problems, [])
      })
  )

  it.effect("a payment scheduled for a date, with markup for its description, shows it as text and is canceled", () =>
    run(async ({ baseUrl, team, browser }) => {
      const { page, problems } = await openWith(browser, { account: team.admin.account })
      await signIn(page, baseUrl)
      await openPage(page, "Payments")
      await page.getByRole("button", { name: "New payment" }).click()
      const markup = "<img src=x onerror=alert(1)>"
      await fillPayee(page, 0, { name: team.ada.name, email: "ada@example.com", amount: "5.00", description: markup })
      await page.getByLabel("Pay later, at a date and time").check()
      const tomorrow = new Date(Date.now() + 86_400_000)
      const local = new Date(tomorrow.getTime() - tomorrow.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
      await page.getByLabel("Pay on").fill(local)
      await page.getByRole("button", { name: "Review" }).click()
      await visible(page.getByText("(intent)"))
      await page.getByRole("button", { name: "Sign and pay" }).click()
      await visible(page.getByRole("heading", { name: "Payment scheduled" }))
      await openPage(page, "Payments")
      const scheduled = page.getByRole("row").filter({ hasText: "Scheduled" })
      await visible(scheduled)
      await visible(scheduled.getByRole("cell", { name: markup }))
      assert.strictEqual(await page.locator("img[src='x']").count(), 0)
      await scheduled.getByRole("link").click()
      await visible(page.getByRole("definition").filter({ hasText: markup }))
      await accessible(page, "scheduled payment")
      await page.getByRole("button", { name: "Cancel payment" }).click()
      await page.getByRole("button", { name: "Yes, cancel it" }).click()
      await visible(page.getByRole("definition").filter({ hasText: "Canceled" }))
      assert.strictEqual(await page.locator("img[src='x']").count(), 0)
      assert.deepStrictEqual(problems, [])
    })
  )

  it.effect(
    "an admin invites a member and sees the invite listed; adds an endpoint, sends a test, sees its delivery and answer",
    () =>
      Effect.gen(function* () {
        // The receiver's answer, with markup in it: the log shows it as text.
        const answer = '{"received":true,"note":"<b id=\\"receiver-markup\\">kept as text</b>"}'
        const receiver = yield* startReceiver(() => ({
          status: 200,
          headers: { "content-type": "application/json" },
          body: answer
        }))
        yield* run(async ({ baseUrl, team, browser }) => {
          const { page, problems } = await openWith(browser, { account: team.admin.account })
          await signIn(page, baseUrl)
          await openPage(page, "Members")
          await visible(page.getByRole("link", { name: "Ada Lovelace" }))
          await accessible(page, "members")
          await page.getByRole("button", { name: "Invite", exact: true }).click()
          const invite = page.getByRole("dialog", { name: "Invite to Test Team" })
          await visible(invite)
          await accessible(page, "invite dialog")
          await invite.getByLabel("E-mail").fill("new.hire@example.com")
          await invite.getByLabel("First name").fill("Katherine")
          await invite.getByRole("button", { name: "Send invite" }).click()
          await visible(page.getByRole("cell", { name: "new.hire@example.com", exact: true }))
          await page.getByRole("link", { name: "Grace Hopper" }).click()
          await visible(page.getByRole("heading", { name: "Member settings" }))
          await accessible(page, "member")

          await openPage(page, "Webhooks")
          await accessible(page, "webhooks (none yet)")
          await page.getByRole("button", { name: "Add endpoint" }).click()
          const add = page.getByRole("dialog", { name: "Add endpoint" })
          await add.getByLabel("Name").fill("Payroll system")
          await add.getByLabel("URL").fill(receiver.url)
          await accessible(page, "add endpoint dialog")
          await add.getByRole("button", { name: "Create endpoint" }).click()
          const secret = page.getByRole("dialog", { name: "Signing secret" })
          await visible(secret)
          assert.match((await secret.getByTestId("webhook-secret").textContent()) ?? "", /^whsec_/)
          await accessible(page, "signing secret")
          await secret.getByRole("button", { name: "I have kept it" }).click()
          await page.getByRole("link", { name: "Payroll system" }).click()
          await visible(page.getByRole("heading", { name: "Deliveries", exact: true }))
          await page.getByLabel("Event to test").selectOption("payment.sent")
          await page.getByRole("button", { name: "Send test" }).click()
          const delivered = page.getByRole("row").filter({ hasText: "payment.sent" }).filter({ hasText: "Succeeded" })
          await visible(delivered)
          await visible(delivered.getByRole("cell", { name: "200", exact: true }))
          // Collapsed until asked for, then the receiver's answer exactly as it came, its markup not made an element.
          await delivered.getByText("1 attempt", { exact: true }).click()
          const body = delivered.getByText(answer, { exact: true })
          assert.isFalse(await body.isVisible())
          await delivered.getByText("Response body", { exact: true }).click()
          await visible(body)
          assert.strictEqual(await page.locator("#receiver-markup").count(), 0)
          await accessible(page, "webhook endpoint")
          await delivered.getByRole("button", { name: "Retry" }).click()
          await visible(page.getByRole("row").filter({ hasText: "2 attempts" }))
          assert.isAtLeast(receiver.received.length, 2)
          assert.deepStrictEqual(problems, [])
        })
      }).pipe(Effect.scoped)
  )

  it.effect(
    "an admin schedules weekly pay and a member's invoice in instalments, reviews and signs it once, sees it listed " +
      "and the cash it needs, and cancels it",
    () =>
      run(async ({ baseUrl, team, chain, browser }) => {
        const grace = await Effect.runPromise(apiSignIn(chain.server, team.grace.account))
        const invoice = { team_nanoid: team.team, invoice_number: "GRACE-3", type: "flat", flat_type: "service" }
        const billed = await Effect.runPromise(
          call(chain.server, "POST", "/v2/invoices", {
            token: grace,
            body: { ...invoice, currency: "USD", amount_cents: 30_000, invoice_description: "Audit" }
          })
        )
        assert.strictEqual(billed.status, 200, JSON.stringify(billed.body))
        const { page, problems } = await openWith(browser, { account: team.admin.account })
        await signIn(page, baseUrl)
        // Finance opens the invoice and pays it in instalments: the new schedule starts with it chosen.
        await openPage(page, "Invoices")
        await page.getByRole("row").filter({ hasText: "GRACE-3" }).getByRole("link", { name: "GRACE-3" }).click()
        await page.getByRole("button", { name: "Pay in instalments" }).click()
        await visible(page.getByRole("heading", { level: 1, name: "New pay schedule" }))
        const chosen = page.getByRole("group", { name: "Invoice 1" }).getByLabel("Invoice")
        await chosen
          .getByRole("option", { name: "GRACE-3, Grace Hopper ($300.00 left)", selected: true })
          .waitFor({ state: "attached", timeout: 15_000 })
        await page.getByRole("button", { name: "Add recipient" }).click()
        await fillPayee(page, 0, {
          name: team.ada.name,
          email: "ada@example.com",
          amount: "100.00",
          description: "Weekly"
        })
        const tomorrow = new Date(Date.now() + 86_400_000)
        const local = new Date(tomorrow.getTime() - tomorrow.getTimezoneOffset() * 60_000).toISOString().slice(0, 16)
        await page.getByLabel("First pay").fill(local)
        await page.getByLabel("Instalments").fill("3")
        await accessible(page, "new pay schedule")
        await page.getByRole("button", { name: "Review" }).click()
        await visible(page.getByText("Checked: 3 weekly instalments of $200.00 to 2 payees"))
        await visible(page.getByRole("cell", { name: "Invoice GRACE-3, $300.00 left of it" }))
        await accessible(page, "pay schedule review")
        await page.getByRole("button", { name: "Sign and schedule" }).click()
        await visible(page.getByRole("heading", { name: "Schedule registered" }))
        await openPage(page, "Pay schedules")
        const row = page.getByRole("row").filter({ hasText: team.ada.name })
        await visible(row.getByText("Active"))
        assert.deepStrictEqual(
          await Promise.all(
            ["Paid", "Left", "Each time"].map((cell) => row.locator(`td[data-label="${cell}"]`).textContent())
          ),
          ["0", "3", "$200.00"]
        )
        await visible(row.getByRole("link", { name: "Invoice GRACE-3" }))
        await accessible(page, "pay schedules")
        // The invoice says what pays it, and offers nothing else while the schedule is active.
        await row.getByRole("link", { name: "Invoice GRACE-3" }).click()
        await visible(page.getByRole("definition").filter({ hasText: "Pay schedule ps-" }))
        assert.strictEqual(await page.getByRole("button", { name: "Pay invoice" }).count(), 0)
        await accessible(page, "invoice held by a schedule")
        // Two instalments fall within the team's 14 days.
        await openPage(page, "Overview", "Test Team")
        await visible(page.getByTestId("cash-requirement").getByText("$400.00"))
        await openPage(page, "Pay schedules")
        await row.getByRole("button", { name: "Cancel" }).click()
        await visible(row.getByText("Canceled"))
        assert.strictEqual(await row.getByRole("button", { name: "Cancel" }).count(), 0)
        // Canceled, the schedule lets the invoice go: it may be paid again.
        await row.getByRole("link", { name: "Invoice GRACE-3" }).click()
        await visible(page.getByRole("button", { name: "Pay invoice" }))
        assert.deepStrictEqual(problems, [])
      })
  )

  it.effect("each role sees only what it may do", () =>
    run(async ({ baseUrl, team, browser }) => {
      const finance = await openWith(browser, { account: team.finance.account })
      await signIn(finance.page, baseUrl)
      assert.deepStrictEqual(await navigationLinks(finance.page), [
        "Overview",
        "Members",
        "Payments",
        "Invoices",
        "Pay schedules",
        "Deposits",
        "Settings"
      ])
      await openPage(finance.page, "Payments")
      await visible(finance.page.getByRole("button", { name: "New payment" }))
      await openPage(finance.page, "Members")
      assert.strictEqual(await finance.page.getByRole("button", { name: "Invite", exact: true }).count(), 0)
      await finance.page.goto(`${baseUrl}/console/${team.team}/webhooks`)
      await visible(finance.page.getByRole("heading", { name: "Your role does not open this page" }))
      await openPage(finance.page, "Deposits")
      await accessible(finance.page, "deposits")

      const viewer = await openWith(browser, { account: team.viewer.account })
      await signIn(viewer.page, baseUrl)
      assert.deepStrictEqual(await navigationLinks(viewer.page), [
        "Overview",
        "Members",
        "Payments",
        "Invoices",
        "Pay schedules",
        "Deposits",
        "Settings"
      ])
      await visible(viewer.page.getByRole("heading", { name: "Balance" }))
      await openPage(viewer.page, "Payments")
      await viewer.page.getByRole("row").nth(3).waitFor()
      assert.strictEqual(await viewer.page.getByRole("button", { name: "New payment" }).count(), 0)
      await openPage(viewer.page, "Settings")
      await visible(viewer.page.getByText("Only the team's admins change these."))
      assert.isTrue(await viewer.page.getByLabel("Invoice number prefix").isDisabled())
      await accessible(viewer.page, "settings (viewer)")

      const employee = await openWith(browser, { account: team.ada.account })
      await signIn(employee.page, baseUrl)
      assert.deepStrictEqual(await navigationLinks(employee.page), ["Overview", "Invoices", "Settings"])
      await visible(employee.page.getByRole("heading", { name: "Your membership" }))
      assert.strictEqual(await employee.page.getByRole("heading", { name: "Balance" }).count(), 0)
      await accessible(employee.page, "overview (employee)")
      await openPage(employee.page, "Settings")
      await visible(employee.page.getByRole("heading", { name: "Your settings" }))
      assert.strictEqual(await employee.page.getByRole("button", { name: /^Save/ }).count(), 0)
      await accessible(employee.page, "settings (employee)")
      assert.deepStrictEqual([...finance.problems, ...viewer.problems, ...employee.problems], [])
    })
  )

  it.effect("a wallet that refuses to sign leaves nothing paid: no payment, the balance unchanged", () =>
    run(async ({ baseUrl, team, chain, browser }) => {
      const token = await Effect.runPromise(apiSignIn(chain.server, team.admin.account))
      const payments = async () =>
        (await Effect.runPromise(call(chain.server, "GET", `/v2/payments?team_nanoid=${team.team}`, { token }))).body
          .data.items.length as number
      const paymentsBefore = await payments()
      const balanceBefore = await chain.gateway.balanceOf(team.account as never).pipe(Effect.runPromise)
      const { page, problems, log } = await openWith(browser, { account: team.finance.account, refuseTypedData: true })
      await signIn(page, baseUrl)
      await openPage(page, "Payments")
      await page.getByRole("button", { name: "New payment" }).click()
      await fillPayee(page, 0, {
        name: team.grace.name,
        email: "grace@example.com",
        amount: "10.00",
        description: "Refused"
      })
      await page.getByRole("button", { name: "Review" }).click()
      await page.getByRole("button", { name: "Sign and pay" }).click()
      const refused = page
        .getByRole("alert")
        .filter({ hasText: "The wallet declined the request: nothing was signed." })
      await visible(refused)
      await accessible(page, "payment refused by the wallet")
      assert.include(log.methods, "eth_signTypedData_v4")
      assert.isTrue(await page.getByRole("button", { name: "Sign and pay" }).isEnabled())
      assert.strictEqual(await payments(), paymentsBefore)
      assert.strictEqual(await chain.gateway.balanceOf(team.account as never).pipe(Effect.runPromise), balanceBefore)
      assert.deepStrictEqual(problems, [])
    })
  )

  it.effect(
    "a member bills the team with time entries; finance reviews and pays it by its id; it reads paid, its PDF",
    () =>
      run(async ({ baseUrl, team, browser }) => {
        const member = await openWith(browser, { account: team.ada.account })
        await signIn(member.page, baseUrl)
        await openPage(member.page, "Invoices")
        await member.page.getByRole("button", { name: "New invoice" }).click()
        await member.page.getByRole("button", { name: "Time entries" }).click()
        await member.page.getByLabel("Invoice number").fill("ADA-7")
        await member.page.getByLabel("Hourly rate").fill("80.00")
        const entry = member.page.getByRole("group", { name: "Time entry 1" })
        await entry.getByLabel("Day").fill("2026-03-02")
        await entry.getByLabel("Hours").fill("7")
        await entry.getByLabel("Minutes").fill("30")
        await entry.getByLabel("Notes").fill("Ledger reconciliation")
        await visible(member.page.getByText("Total $600.00"))
        await accessible(member.page, "new invoice")
        await member.page.getByRole("button", { name: "Submit invoice" }).click()
        await visible(member.page.getByRole("heading", { name: "Invoice ADA-7" }))
        await visible(member.page.getByRole("definition").filter({ hasText: "Submitted" }))
        await accessible(member.page, "invoice (its author)")

        // The team's finance admin pays, with the role on chain the fixture granted them.
        const finance = await openWith(browser, { account: team.finance.account })
        await signIn(finance.page, baseUrl)
        await openPage(finance.page, "Invoices")
        const row = finance.page.getByRole("row").filter({ hasText: "ADA-7" })
        await visible(row.getByText("Ada Lovelace"))
        await accessible(finance.page, "invoices")
        await row.getByRole("link", { name: "ADA-7" }).click()
        await finance.page.getByRole("button", { name: "Pay invoice" }).click()
        await visible(finance.page.getByText("Checked: 1 payment of exactly the amounts above, $600.00 in all"))
        await visible(finance.page.getByRole("cell", { name: "Invoice ADA-7" }))
        await finance.page.getByRole("button", { name: "Sign and pay" }).click()
        await visible(finance.page.getByText("Invoice paid"))
        await visible(finance.page.getByRole("definition").filter({ hasText: "Paid" }).first())
        await accessible(finance.page, "invoice paid")
        const [pdf] = await Promise.all([
          finance.page.waitForEvent("download"),
          finance.page.getByRole("button", { name: "Download PDF" }).click()
        ])
        assert.strictEqual(pdf.suggestedFilename(), "invoice-ADA-7.pdf")
        assert.deepStrictEqual([...member.problems, ...finance.problems], [])
      })
  )

  it.effect("an admin blocks and unblocks a member; a member sets where they are paid, signed by both accounts", () =>
    run(async ({ browser, baseUrl, team }) => {
      const admin = await openWith(browser, { account: team.admin.account })
      await signIn(admin.page, baseUrl)
      await openPage(admin.page, "Members")
      await admin.page.getByRole("link", { name: team.grace.name }).click()
      await admin.page.getByLabel("Reason").fill("Two accounts, one payee")
      await admin.page.getByRole("button", { name: "Block member" }).click()
      await visible(admin.page.getByRole("button", { name: "Unblock member" }))
      await accessible(admin.page, "member (blocked)")
      await admin.page.getByRole("link", { name: "← Members" }).click()
      const row = admin.page.getByRole("row").filter({ hasText: team.grace.name })
      await visible(row.getByText("Blocked", { exact: true }))
      await row.getByRole("link", { name: team.grace.name }).click()
      await admin.page.getByRole("button", { name: "Unblock member" }).click()
      await visible(admin.page.getByRole("button", { name: "Block member" }))
      assert.deepStrictEqual(admin.problems, [])

      const payout = privateKeyToAccount(generatePrivateKey())
      const alan = await openWith(browser, { account: team.alan.account, others: [payout] })
      await signIn(alan.page, baseUrl)
      await openPage(alan.page, "Settings")
      await alan.page.getByLabel("New payout address").fill(payout.address)
      await alan.page.getByRole("button", { name: "Set payout address" }).click()
      await visible(alan.page.getByText("Payments issued from now on go there."))
      await visible(alan.page.getByText(payout.address.toLowerCase()).first())
      await accessible(alan.page, "settings (payout address)")
      assert.deepStrictEqual(alan.problems, [])
      assert.strictEqual(alan.log.methods.filter((m) => m === "eth_signTypedData_v4").length, 2)
    })
  )

  it.effect("at 375 px wide the pages have no horizontal scroll", () =>
    run(async ({ baseUrl, team, browser }) => {
      const { page, problems } = await openWith(browser, { account: team.admin.account }, { width: 375, height: 812 })
      await signIn(page, baseUrl)
      for (const path of [
        "",
        "/payments",
        "/payments/new",
        "/invoices",
        "/members",
        "/webhooks",
        "/deposits",
        "/settings"
      ]) {
        await page.goto(`${baseUrl}/console/${team.team}${path}`)
        await visible(page.getByRole("heading", { level: 1 }))
        await page
          .getByRole("status")
          .first()
          .waitFor({ state: "detached" })
          .catch(() => undefined)
        const width = await page.evaluate(() =>
          Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)
        )
        assert.isAtMost(width, 375, `${path || "/"} is ${width} px wide`)
      }
      await page.goto(`${baseUrl}/console/${team.team}/payments`)
      await page.getByRole("row").nth(3).waitFor()
      await accessible(page, "payments at 375 px")
      if (process.env.SVC_CONSOLE_SCREENSHOT !== undefined) {
        await page.screenshot({
          path: process.env.SVC_CONSOLE_SCREENSHOT.replace(/\.png$/, "-375.png"),
          fullPage: true
        })
      }
      assert.deepStrictEqual(problems, [])
    })
  )
})
