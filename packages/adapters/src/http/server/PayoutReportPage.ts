/**
 * The page a payout address notice links to (`GET /withdraw-account/report?change=wa-…&token=…`, decision 0108): one
 * self-contained HTML document under a strict Content-Security-Policy, with one button that reports the change through
 * the API (`POST /v2/user/withdraw_account/report`). Opening the link changes nothing (mail scanners open links too);
 * the button does, with no wallet and no sign-in: the link's token is the authority.
 */
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { faviconDataUri } from "./Favicon.ts"
import { escapeHtml } from "./InvitePage.ts"

const style = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
main{max-width:34rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin:0 0 1rem}button{font:inherit;padding:.6rem 1.2rem;border-radius:8px;border:1px solid #a3141f;
background:#a3141f;color:#fff;cursor:pointer}button:disabled{opacity:.4;cursor:default}#status{margin-top:1.2rem;min-height:1.5rem}
.error{color:#a3141f}.done{color:#0b6b2b}code{word-break:break-all}`

/** The page's script: reads the change and token from the data block, reports once when asked. */
const script = `
(() => {
  const link = JSON.parse(document.getElementById("report-data").textContent)
  const button = document.getElementById("report")
  const status = document.getElementById("status")
  const say = (text, kind) => { status.textContent = text; status.className = kind || "" }
  const byCode = {
    PAYOUT_REPORT_INVALID: "This link is not valid any more: it was used, it expired, or it is mistyped.",
    INVALID_STATE_TRANSITION: "Your payout address changed again since this change: report the later change from its own e-mail."
  }
  button.addEventListener("click", async () => {
    button.disabled = true
    say("Reporting…")
    try {
      const response = await fetch("/v2/user/withdraw_account/report", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ change_nanoid: link.change, token: link.token })
      })
      const answer = await response.json().catch(() => ({}))
      if (!response.ok || answer.success === false) throw new Error(byCode[answer.error_code] || answer.data || ("The service answered " + response.status))
      const back = answer.data.address === null ? "your own svc account" : answer.data.address
      say("Reported. You are paid at " + back + " again, and your teams were told. Move your funds to a wallet only you hold.", "done")
    } catch (error) {
      say(error.message, "error")
      button.disabled = false
    }
  })
})()`

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`

/** Only this page's own script and style, and requests to its own origin. */
const contentSecurityPolicy = [
  "default-src 'none'",
  `script-src ${sha256(script)}`,
  `style-src ${sha256(style)}`,
  "connect-src 'self'",
  "img-src data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

/** JSON safe inside a `<script type="application/json">` block. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026")

const changePattern = /^wa-[0-9A-Za-z_-]{1,61}$/
const tokenPattern = /^[0-9a-f]{64}$/

/** The page for the link of `change` with `token`, or for a malformed link. */
export const payoutReportPage = (link: { readonly change: string; readonly token: string } | undefined): string => {
  const body =
    link === undefined
      ? `<p class="error">This link is not valid: it may be mistyped. Use the link of the e-mail as it is.</p>`
      : `<p>Your payout address changed (change <code>${escapeHtml(link.change)}</code>). If you did not make this change, report it: the address you were paid at before is put back, and your teams are told.</p>
<button id="report">Report: this was not me</button>
<p id="status" role="status" aria-live="polite"></p>
<script type="application/json" id="report-data">${scriptJson(link)}</script>
<script>${script}</script>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><link rel="icon" href="${faviconDataUri}"><title>Report a payout address change</title><style>${style}</style></head>
<body><main><h1>Report a payout address change</h1>
${body}
</main></body></html>`
}

/** `GET /withdraw-account/report`: the page, 200 for a well-formed link, 404 otherwise. Nothing changes on a GET. */
export const PayoutReportPage = HttpRouter.use((router) =>
  router.add("GET", "/withdraw-account/report", (request: HttpServerRequest.HttpServerRequest) =>
    Effect.sync(() => {
      const query = new URL(request.url, "http://page").searchParams
      const change = query.get("change") ?? ""
      const token = query.get("token") ?? ""
      const link = changePattern.test(change) && tokenPattern.test(token) ? { change, token } : undefined
      return HttpServerResponse.text(payoutReportPage(link), {
        status: link === undefined ? 404 : 200,
        contentType: "text/html; charset=utf-8",
        headers: {
          "content-security-policy": contentSecurityPolicy,
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
          "x-content-type-options": "nosniff",
          "x-frame-options": "DENY"
        }
      })
    })
  )
)
