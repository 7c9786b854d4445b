/**
 * The invite page as an invitee meets it (issue 21): the link of a mail received by a real SMTP server, opened in a
 * real headless Chromium (Debian's, driven by playwright-core) with an EIP-1193 wallet injected into the page and
 * backed by a test key. The invitee reads the invite without a wallet, signs in with SIWE and accepts, and is then a
 * member; a used link, a page without a wallet, a declined invite and an unknown link each say what they are. A manager
 * invite's link opens the same page on a server settling on anvil: it names the wallet the role is granted to, refuses
 * another wallet before anything is signed, declines with the right one, and says the role is granted once the admin's
 * signed grant is executed.
 */
import { existsSync } from "node:fs"
import { assert, describe, it } from "@effect/vitest"
import { SmtpMailer } from "@svc/adapters/mail"
import { type ReceivedMail, startTestSmtpServer, textOf } from "@svc/adapters/test/TestSmtpServer"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Effect, Redacted } from "effect"
import { type Browser, chromium, type Page } from "playwright-core"
import type { Hex } from "viem"
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import {
  ChainTestServer,
  call,
  fundedTeam,
  seedTeam,
  signIn,
  startChainTestServerWith,
  startTestServerWith
} from "../test/TestServer.ts"

/** Debian's Chromium (installed by the bootstrap when missing), or `CHROMIUM_PATH`. */
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

const browser = Effect.acquireRelease(
  Effect.promise(() => {
    if (!existsSync(chromiumPath)) throw new Error(`no Chromium at ${chromiumPath}: run npm test (it installs it)`)
    return chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox", "--disable-gpu"] })
  }),
  (opened: Browser) => Effect.promise(() => opened.close())
)

/** A page with `window.ethereum` backed by `account` (accounts and personal_sign, as a browser wallet answers). */
const pageWithWallet = (opened: Browser, account: PrivateKeyAccount | undefined) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const page = await opened.newPage()
      if (account !== undefined) {
        await page.exposeFunction("testWalletSign", (hex: Hex) => account.signMessage({ message: { raw: hex } }))
        await page.addInitScript((address: string) => {
          const sign = (globalThis as unknown as { testWalletSign: (hex: string) => Promise<string> }).testWalletSign
          ;(globalThis as unknown as { ethereum: unknown }).ethereum = {
            request: async ({ method, params }: { method: string; params?: Array<string> }) => {
              if (method === "eth_requestAccounts" || method === "eth_accounts") return [address]
              if (method === "personal_sign") return sign(params?.[0] ?? "0x")
              throw Object.assign(new Error(`unsupported ${method}`), { code: 4200 })
            }
          }
        }, account.address)
      }
      return page
    }),
    (page: Page) => Effect.promise(() => page.close())
  )

/** The link of a received invite mail. */
const linkOf = (mail: ReceivedMail) => {
  const match = /(http:\/\/\S+\/invites\/accept\?invite=in-[\w-]{12}&token=[0-9a-f]{64})/.exec(textOf(mail))
  assert.isNotNull(match, textOf(mail))
  return match![1]!
}

describe("the invite page", () => {
  it.live(
    "a mailed link opens in Chromium; an injected wallet signs in and accepts; used, walletless and unknown links say so",
    () =>
      Effect.gen(function* () {
        const smtp = yield* startTestSmtpServer
        const server = yield* startTestServerWith({
          mailer: SmtpMailer.layer({ url: Redacted.make(smtp.url), from: "svc <invites@svc.test>" })
        })
        const { teamId, members } = yield* seedTeam(server, ["team_admin"])
        const admin = yield* signIn(server, members[0]!.account)
        const created = yield* call(server, "POST", "/v2/invites", {
          token: admin,
          body: {
            nanoid: teamId,
            invites: [{ email: "ada@example.com" }, { email: "bob@example.com" }, { email: "cy@example.com" }],
            role: "team_employee"
          }
        })
        assert.strictEqual(created.status, 200, JSON.stringify(created.body))
        const mails = new Map((yield* smtp.waitFor(3)).map((mail) => [mail.to[0], mail]))
        const adaLink = linkOf(mails.get("ada@example.com")!)
        const opened = yield* browser

        // Readable without a wallet: the team, the role and who invited; served under a strict CSP, nothing outside.
        const ada = privateKeyToAccount(generatePrivateKey())
        const page = yield* pageWithWallet(opened, ada)
        const outside: Array<string> = []
        page.on("request", (request) => {
          if (!request.url().startsWith(server.baseUrl)) outside.push(request.url())
        })
        const response = yield* Effect.promise(() => page.goto(adaLink))
        assert.strictEqual(response?.status(), 200)
        const csp = response?.headers()["content-security-policy"] ?? ""
        assert.include(csp, "default-src 'none'")
        assert.match(csp, /script-src 'sha256-[^']+'(;|$)/)
        assert.strictEqual(yield* Effect.promise(() => page.textContent("#team")), "Test Team")
        assert.strictEqual(yield* Effect.promise(() => page.textContent("#role")), "employee")
        assert.include(yield* Effect.promise(() => page.textContent("main")), "Test team_admin invited you")

        // Accept: connect, SIWE, accept; then Ada is a member.
        yield* Effect.promise(() => page.click("#accept"))
        yield* Effect.promise(() => page.waitForSelector("#status.done", { timeout: 15_000 }))
        const done = yield* Effect.promise(() => page.textContent("#status"))
        assert.include(done, `${ada.address.toLowerCase()} is now a member of Test Team as employee`)
        const users = yield* call(server, "GET", `/v2/teams/${teamId}/users`, { token: admin })
        const joined = (users.body.data.users as Array<{ email: string; role: string }>).find(
          (user) => user.email === "ada@example.com"
        )
        assert.strictEqual(joined?.role, "team_employee")
        assert.deepStrictEqual(outside, [])

        // The same link again: used.
        yield* Effect.promise(() => page.goto(adaLink))
        assert.include(yield* Effect.promise(() => page.textContent("#status")), "already accepted")
        assert.isTrue(yield* Effect.promise(() => page.isDisabled("#accept")))

        // No wallet in the browser: said, and nothing to click.
        const bare = yield* pageWithWallet(opened, undefined)
        yield* Effect.promise(() => bare.goto(linkOf(mails.get("bob@example.com")!)))
        assert.include(yield* Effect.promise(() => bare.textContent("#status")), "No wallet found")
        assert.isTrue(yield* Effect.promise(() => bare.isDisabled("#accept")))

        // Declined with a wallet.
        const cyPage = yield* pageWithWallet(opened, privateKeyToAccount(generatePrivateKey()))
        yield* Effect.promise(() => cyPage.goto(linkOf(mails.get("cy@example.com")!)))
        yield* Effect.promise(() => cyPage.click("#reject"))
        yield* Effect.promise(() => cyPage.waitForSelector("#status.done", { timeout: 15_000 }))
        assert.include(yield* Effect.promise(() => cyPage.textContent("#status")), "Declined")

        // An unknown link: 404, and a page that says so.
        const wrong = adaLink.replace(/token=[0-9a-f]{64}/, `token=${"0".repeat(64)}`)
        const missing = yield* Effect.promise(() => bare.goto(wrong))
        assert.strictEqual(missing?.status(), 404)
        assert.include(yield* Effect.promise(() => bare.textContent("main")), "This invite link is not valid")
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )

  it.live(
    "a manager invite's link opens the same page: another wallet is refused, its wallet declines, a granted role says so",
    () =>
      Effect.gen(function* () {
        const smtp = yield* startTestSmtpServer
        const chain = yield* startChainTestServerWith({
          mailer: SmtpMailer.layer({ url: Redacted.make(smtp.url), from: "svc <invites@svc.test>" })
        })
        const { server } = chain
        const team = yield* fundedTeam(1_000_000n).pipe(Effect.provideService(ChainTestServer, chain))
        const finance = privateKeyToAccount(generatePrivateKey())
        const viewer = privateKeyToAccount(generatePrivateKey())
        const invite = (email: string, role: string, wallet: string) =>
          Effect.gen(function* () {
            const created = yield* call(server, "POST", "/v2/invites/manager", {
              token: team.token,
              body: { nanoid: team.team, invites: [{ email, role, wallet }] }
            })
            assert.strictEqual(created.status, 200, JSON.stringify(created.body))
            return created.body.data as TypedDataBundle & { invites: Array<string> }
          })
        const grant = (bundle: TypedDataBundle & { invites: Array<string> }) =>
          Effect.gen(function* () {
            const signature = yield* Effect.promise(() => team.admin.signTypedData(signableOf(bundle) as never))
            return yield* call(server, "PUT", "/v2/invites/manager", {
              token: team.token,
              body: { invites: bundle.invites, signer: team.admin.address, typed_data: bundle.typed_data, signature }
            })
          })
        const financeBundle = yield* invite("fin@example.com", "team_finance_admin", finance.address)
        const viewerBundle = yield* invite("view@example.com", "team_viewer", viewer.address)
        const mails = new Map((yield* smtp.waitFor(2)).map((mail) => [mail.to[0], mail]))
        const financeMail = mails.get("fin@example.com")!
        assert.match(
          financeMail.raw.replace(/\r?\n[ \t]+/g, " "),
          /^Subject: .*making you team_finance_admin of Test Team/m
        )
        assert.include(textOf(financeMail), finance.address.toLowerCase())
        const opened = yield* browser

        // Readable without a wallet: the team, the role and the wallet it is granted to; nothing to accept.
        const stranger = yield* pageWithWallet(opened, privateKeyToAccount(generatePrivateKey()))
        const response = yield* Effect.promise(() => stranger.goto(linkOf(financeMail)))
        assert.strictEqual(response?.status(), 200)
        assert.strictEqual(yield* Effect.promise(() => stranger.textContent("#role")), "finance admin")
        assert.strictEqual(yield* Effect.promise(() => stranger.textContent("#wallet")), finance.address.toLowerCase())
        assert.strictEqual(yield* Effect.promise(() => stranger.$("#accept")), null)
        assert.include(yield* Effect.promise(() => stranger.textContent("main")), "nothing for you to sign")

        // Another wallet: said before anything is signed, the invite still pending, and the button back.
        yield* Effect.promise(() => stranger.click("#reject"))
        yield* Effect.promise(() => stranger.waitForSelector("#status.error", { timeout: 15_000 }))
        assert.include(
          yield* Effect.promise(() => stranger.textContent("#status")),
          `for the wallet ${finance.address.toLowerCase()}`
        )
        assert.isFalse(yield* Effect.promise(() => stranger.isDisabled("#reject")))
        const pending = yield* call(server, "GET", `/v2/invites?nanoid=${team.team}`, { token: team.token })
        assert.strictEqual(pending.body.data.length, 2)

        // Its wallet declines; the admin's grant of it is then refused.
        const financePage = yield* pageWithWallet(opened, finance)
        yield* Effect.promise(() => financePage.goto(linkOf(financeMail)))
        yield* Effect.promise(() => financePage.click("#reject"))
        yield* Effect.promise(() => financePage.waitForSelector("#status.done", { timeout: 15_000 }))
        assert.include(yield* Effect.promise(() => financePage.textContent("#status")), "Declined")
        const refused = yield* grant(financeBundle)
        assert.strictEqual(refused.status, 409, JSON.stringify(refused.body))
        assert.strictEqual(refused.body.error_code, "INVITE_ALREADY_ANSWERED")

        // The link alone accepts nothing: a manager invite is accepted by the admin's signed grant.
        const viewerLink = linkOf(mails.get("view@example.com")!)
        const viewerToken = new URL(viewerLink).searchParams.get("token")
        const byLink = yield* call(server, "POST", "/v2/invites/accept", {
          token: yield* signIn(server, viewer),
          body: { invite_nanoid: viewerBundle.invites[0], token: viewerToken }
        })
        assert.strictEqual(byLink.status, 409, JSON.stringify(byLink.body))
        assert.strictEqual(byLink.body.error_code, "INVALID_STATE_TRANSITION")

        // Granted: the page says so, with nothing to click.
        const granted = yield* grant(viewerBundle)
        assert.strictEqual(granted.status, 200, JSON.stringify(granted.body))
        const viewerPage = yield* pageWithWallet(opened, viewer)
        yield* Effect.promise(() => viewerPage.goto(viewerLink))
        assert.include(
          yield* Effect.promise(() => viewerPage.textContent("#status.done")),
          `The role is granted: ${viewer.address.toLowerCase()} is viewer of Test Team.`
        )
        assert.isTrue(yield* Effect.promise(() => viewerPage.isDisabled("#reject")))
      }).pipe(Effect.scoped),
    { timeout: 120_000 }
  )
})
