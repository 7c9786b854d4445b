/**
 * The console's browser tests' kit: Debian's Chromium driven by playwright-core (never a browser download), a page
 * with a browser wallet injected into it (an EIP-1193 provider announced by EIP-6963, as wallets do, that signs in
 * Node with a viem account: the key never enters the page), and axe-core's audit of a page.
 */
import { existsSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import type { Hex, PrivateKeyAccount } from "viem"

/** Debian's Chromium (installed by the bootstrap when missing), or `CHROMIUM_PATH`. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/**
 * One headless Chromium for the whole file. Its background services are off: this machine's network is closed, and
 * they would only try and fail (docs: /work/.library/env/machines/node.md).
 */
export const launchBrowser = (): Promise<Browser> => {
  if (!existsSync(chromiumPath)) throw new Error(`no Chromium at ${chromiumPath}: run npm test (it installs it)`)
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync"
    ]
  })
}

/**
 * The wallet a page holds: its account (the one it connects with), other accounts it holds (it signs typed data as
 * whichever the request names), and whether it refuses to sign typed data (a person pressing Reject).
 */
export interface TestWallet {
  readonly account: PrivateKeyAccount
  readonly others?: ReadonlyArray<PrivateKeyAccount>
  readonly refuseTypedData?: boolean
}

/** What the wallet in the page was asked, for assertions. */
export interface WalletLog {
  readonly methods: Array<string>
}

type Answer = { readonly result: unknown } | { readonly error: { readonly code: number; readonly message: string } }

/** The wallet's answers, in Node: EIP-1193 methods a dapp calls, signed with the account. */
const answerer = (wallet: TestWallet, log: WalletLog) => {
  let chainId = 1
  return async (method: string, params: ReadonlyArray<unknown> | undefined): Promise<Answer> => {
    log.methods.push(method)
    const { account } = wallet
    switch (method) {
      case "eth_requestAccounts":
      case "eth_accounts":
        return { result: [account.address] }
      case "eth_chainId":
        return { result: `0x${chainId.toString(16)}` }
      case "wallet_switchEthereumChain":
        chainId = Number((params?.[0] as { chainId?: string } | undefined)?.chainId)
        return { result: null }
      case "personal_sign":
        return { result: await account.signMessage({ message: { raw: params?.[0] as Hex } }) }
      case "eth_signTypedData_v4": {
        if (wallet.refuseTypedData === true) return { error: { code: 4001, message: "User rejected the request." } }
        const typed = JSON.parse(params?.[1] as string)
        const { EIP712Domain: _domain, ...types } = typed.types
        const named = String(params?.[0] ?? "").toLowerCase()
        const signer = [account, ...(wallet.others ?? [])].find((a) => a.address.toLowerCase() === named)
        if (signer === undefined) return { error: { code: 4100, message: "The requested account is not authorized." } }
        return { result: await signer.signTypedData({ ...typed, types }) }
      }
      default:
        return { error: { code: 4200, message: `unsupported ${method}` } }
    }
  }
}

/**
 * A new page (in a context of its own: its own `sessionStorage`) whose wallet is `wallet`: announced through
 * EIP-6963 and set as `window.ethereum`, before any script of the page runs.
 */
export const pageWithWallet = async (
  browser: Browser,
  wallet: TestWallet,
  viewport = { width: 1280, height: 860 }
): Promise<{ readonly context: BrowserContext; readonly page: Page; readonly log: WalletLog }> => {
  const context = await browser.newContext({ viewport })
  const page = await context.newPage()
  const log: WalletLog = { methods: [] }
  await page.exposeFunction("svcTestWallet", answerer(wallet, log))
  await page.addInitScript(() => {
    const call = (globalThis as unknown as { svcTestWallet: (m: string, p: unknown) => Promise<Answer> }).svcTestWallet
    const provider = {
      request: async ({ method, params }: { method: string; params?: ReadonlyArray<unknown> }) => {
        const answer = await call(method, params)
        if ("error" in answer) throw Object.assign(new Error(answer.error.message), { code: answer.error.code })
        return answer.result
      },
      on: () => provider,
      removeListener: () => provider
    }
    const icon =
      "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PHJlY3Qgd2lkdGg9IjE2IiBoZWlnaHQ9IjE2IiByeD0iNCIgZmlsbD0iIzFkNGVkOCIvPjwvc3ZnPg=="
    const info = { uuid: "9f3a2c1e-0000-4000-8000-000000000001", name: "Test Wallet", icon, rdns: "test.svc.wallet" }
    const announce = () =>
      window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }))
    window.addEventListener("eip6963:requestProvider", announce)
    ;(window as unknown as { ethereum: unknown }).ethereum = provider
    announce()
  })
  return { context, page, log }
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** One rule axe-core found broken, with how bad it is and where. */
export interface AxeFinding {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly targets: ReadonlyArray<string>
}

/** axe-core's audit of the page as it is now (WCAG 2.1 A and AA, and best practices): every violation found. */
export const audit = async (page: Page): Promise<ReadonlyArray<AxeFinding>> => {
  await page.evaluate(axeSource)
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (context: unknown, options: unknown) => Promise<unknown> } })
      .axe
    const result = (await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"] }
    })) as {
      violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: Array<string> }> }>
    }
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      targets: violation.nodes.map((node) => node.target.join(" "))
    }))
  })
}

/** The serious and critical findings only: the bar is none of them on any page. */
export const serious = (findings: ReadonlyArray<AxeFinding>) =>
  findings.filter((finding) => finding.impact === "serious" || finding.impact === "critical")
