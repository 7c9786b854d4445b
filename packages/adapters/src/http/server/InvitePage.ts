/**
 * The page an invite e-mail links to (`GET /invites/accept?invite=in-…&token=…`, issue 21): one self-contained HTML
 * document (no CDN, fonts or outside scripts) under a strict Content-Security-Policy. It shows the team, the role and
 * who invited, readable without a wallet; then the invitee connects an EIP-1193 wallet (`window.ethereum`), signs in
 * with SIWE through the API (`GET /v2/auth/siwe`, `personal_sign`, `POST /v2/auth/verify`) and accepts or declines
 * (`POST /v2/invites/accept`, `/v2/invites/reject`). A manager invite gets the same page: its role is granted by the
 * admin's signed grant, so its invitee sees the invite and the wallet it grants to, and may decline with that wallet
 * (decision 0070). Every state says what it means: used, revoked, expired or unknown link, no wallet, a wallet that is
 * already a member, another wallet than the invite's.
 */
import { createHash } from "node:crypto"
import type { InviteId } from "@svc/domain/Ids"
import { type InvitePreview, Invites } from "@svc/domain/invite"
import { Effect } from "effect"
import { HttpRouter, type HttpServerRequest, HttpServerResponse } from "effect/http"
import { faviconDataUri } from "./Favicon.ts"

/** Text made safe for HTML element content and attribute values. */
export const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c)

/** JSON safe inside a `<script type="application/json">` block (no `</script>`, no HTML comment openers). */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/</g, "\\u003c").replace(/>/g, "\\u003e").replace(/&/g, "\\u0026")

const style = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}
main{max-width:34rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px #0002}
h1{font-size:1.4rem;margin:0 0 1rem}dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0 0 1.5rem}
dt{color:#5b6470}dd{margin:0;word-break:break-all}button{font:inherit;padding:.6rem 1.2rem;border-radius:8px;border:1px solid #1b1f24;cursor:pointer;margin-right:.5rem}
#accept{background:#1b1f24;color:#fff}button:disabled{opacity:.4;cursor:default}#status{margin-top:1.2rem;min-height:1.5rem}
.error{color:#a3141f}.done{color:#0b6b2b}`

/** The page's script: reads the invite from the data block, drives the wallet and the API. */
const script = `
(() => {
  const invite = JSON.parse(document.getElementById("invite-data").textContent)
  const status = document.getElementById("status")
  const buttons = [document.getElementById("accept"), document.getElementById("reject")].filter(Boolean)
  const granted = invite.kind === "manager"
  const say = (text, kind) => { status.textContent = text; status.className = kind || "" }
  const enable = (on) => buttons.forEach((b) => { b.disabled = !on })
  const closed = {
    accepted: granted
      ? "The role is granted: " + invite.account + " is " + invite.role + " of " + invite.team_name + "."
      : "This invite was already accepted: the link works once.",
    rejected: "This invite was declined: the link works once.",
    revoked: "This invite was withdrawn by the team. Ask them for a new one.",
    expired: "This invite has expired. Ask the team to send it again."
  }
  const byCode = {
    INVITE_NOT_FOUND: "This link is not valid any more (a newer e-mail may have replaced it).",
    INVITE_ALREADY_ANSWERED: "This invite was already answered: the link works once.",
    INVITE_EXPIRED: closed.expired,
    INVITE_REVOKED: closed.revoked,
    ALREADY_TEAM_MEMBER: "This wallet is already a member of the team.",
    TEAM_NOT_FOUND: "The team no longer exists."
  }
  if (invite.state !== "pending") {
    enable(false)
    say(closed[invite.state] || "This invite cannot be answered.", granted && invite.state === "accepted" ? "done" : "error")
    return
  }
  if (!window.ethereum) { enable(false); say("No wallet found: install a browser wallet (one that provides window.ethereum), then reload this page.", "error"); return }
  const api = async (method, path, body, jwt) => {
    const headers = { "content-type": "application/json" }
    if (jwt) headers.authorization = "Bearer " + jwt
    const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
    const answer = await response.json().catch(() => ({}))
    if (!response.ok || answer.success === false) {
      const error = new Error(byCode[answer.error_code] || answer.data || ("The service answered " + response.status))
      error.code = answer.error_code
      throw error
    }
    return answer.data
  }
  const hexOf = (text) => "0x" + Array.from(new TextEncoder().encode(text), (b) => b.toString(16).padStart(2, "0")).join("")
  let session
  const signIn = async () => {
    if (session) return session
    say("Connect your wallet…")
    const [wallet] = await window.ethereum.request({ method: "eth_requestAccounts" })
    if (!wallet) throw new Error("The wallet gave no account.")
    // A wallet-bound invite is answered by its wallet only: said before anything is signed.
    if (invite.account && wallet.toLowerCase() !== invite.account.toLowerCase()) {
      throw new Error("This invite is for the wallet " + invite.account + ", and your wallet gave " + wallet + ". Switch to that account in your wallet, then try again.")
    }
    const challenge = await api("GET", "/v2/auth/siwe?wallet=" + encodeURIComponent(wallet.toLowerCase()))
    say("Sign the sign-in message in your wallet…")
    const sig = await window.ethereum.request({ method: "personal_sign", params: [hexOf(challenge.siwe), wallet] })
    const verified = await api("POST", "/v2/auth/verify", { message: challenge.siwe, sig, nonce: challenge.nonce })
    session = { wallet: wallet.toLowerCase(), jwt: verified.jwt }
    return session
  }
  const answer = (action) => async () => {
    enable(false)
    try {
      const { wallet, jwt } = await signIn()
      say(action === "accept" ? "Accepting…" : "Declining…")
      await api("POST", "/v2/invites/" + action, { invite_nanoid: invite.invite_nanoid, token: invite.token }, jwt)
      say(action === "accept"
        ? "Done: " + wallet + " is now a member of " + invite.team_name + " as " + invite.role + "."
        : "Declined. You can close this page.", "done")
    } catch (error) {
      const declined = error && (error.code === 4001 || error.code === "ACTION_REJECTED")
      say(declined ? "The wallet declined the request. You can try again." : (error && error.message) || String(error), "error")
      // An answer that closes the invite leaves nothing to click; anything else (a wallet that declined) may be tried again.
      enable(!(error && byCode[error.code]))
    }
  }
  document.getElementById("accept")?.addEventListener("click", answer("accept"))
  document.getElementById("reject").addEventListener("click", answer("reject"))
  enable(true)
})()`

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`

/** Only this page's own script and style run; it talks to this server only, and no one may frame it. */
export const contentSecurityPolicy = [
  "default-src 'none'",
  `script-src ${sha256(script)}`,
  `style-src ${sha256(style)}`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'"
].join("; ")

const roleNames: Record<string, string> = {
  team_employee: "employee",
  team_contractor: "contractor",
  team_admin: "admin",
  team_finance_admin: "finance admin",
  team_viewer: "viewer"
}

/** The invite's team, role, wallet (when bound to one), e-mail and expiry. */
const details = (preview: InvitePreview) =>
  `<dl><dt>Team</dt><dd id="team">${escapeHtml(preview.team_name)}</dd><dt>Role</dt><dd id="role">${escapeHtml(roleNames[preview.role] ?? preview.role)}</dd>${preview.account === undefined ? "" : `<dt>Wallet</dt><dd id="wallet">${escapeHtml(preview.account)}</dd>`}<dt>Invited</dt><dd>${escapeHtml(preview.email)}</dd><dt>Expires</dt><dd>${escapeHtml(preview.expires_at.slice(0, 16).replace("T", " "))} UTC</dd></dl>`

/** What a member invite asks: accept with the wallet to be paid to, or decline. */
const memberInvite = (
  preview: InvitePreview
) => `<p>${preview.inviter_name === "" ? "You have been invited" : `<strong>${escapeHtml(preview.inviter_name)}</strong> invited you`} to join a team on svc, to be paid in USDC.</p>
${details(preview)}
<p>Accept with the wallet you want to be paid to: it signs you in (no transaction, no fee).</p>
<button id="accept" disabled>Accept with my wallet</button><button id="reject" disabled>Decline</button>`

/** What a manager invite asks: nothing to accept (the admin's signed grant does), and a decline by its wallet. */
const managerInvite = (
  preview: InvitePreview
) => `<p>${preview.inviter_name === "" ? "A team admin" : `<strong>${escapeHtml(preview.inviter_name)}</strong>`} is granting a wallet a role in a team on svc.</p>
${details(preview)}
<p>The role takes effect once they sign the grant: there is nothing for you to sign. If you do not want it, decline with that wallet (no transaction, no fee).</p>
<button id="reject" disabled>Decline</button>`

/** The page for `preview` (its link's `token` given back to the API when answering), or for an unknown link. */
export const invitePage = (preview: (InvitePreview & { readonly token: string }) | undefined): string => {
  const title = preview === undefined ? "Invite not found" : `Join ${preview.team_name}`
  const role = preview === undefined ? "" : (roleNames[preview.role] ?? preview.role)
  const body =
    preview === undefined
      ? `<p class="error">This invite link is not valid: it may be mistyped, or a newer e-mail replaced it. Ask the team to send the invite again.</p>`
      : `${preview.kind === "manager" ? managerInvite(preview) : memberInvite(preview)}
<p id="status" role="status" aria-live="polite"></p>
<script type="application/json" id="invite-data">${scriptJson({ ...preview, role })}</script>
<script>${script}</script>`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><link rel="icon" href="${faviconDataUri}"><title>${escapeHtml(title)}</title><style>${style}</style></head>
<body><main><h1>${escapeHtml(title)}</h1>
${body}
</main></body></html>`
}

const idPattern = /^in-[0-9A-Za-z_-]{12}$/
const tokenPattern = /^[0-9A-Za-z_-]{16,256}$/

/** `GET /invites/accept`: the page, 200 for an invite the link opens (whatever its state), 404 otherwise. */
export const InvitePage = HttpRouter.use((router) =>
  Effect.gen(function* () {
    const invites = yield* Invites
    yield* router.add("GET", "/invites/accept", (request: HttpServerRequest.HttpServerRequest) =>
      Effect.gen(function* () {
        const query = new URL(request.url, "http://page").searchParams
        const id = query.get("invite") ?? ""
        const token = query.get("token") ?? ""
        const preview =
          idPattern.test(id) && tokenPattern.test(token)
            ? yield* invites.preview(id as InviteId, token).pipe(Effect.option)
            : undefined
        const found = preview?._tag === "Some" ? { ...preview.value, token } : undefined
        return HttpServerResponse.text(invitePage(found), {
          status: found === undefined ? 404 : 200,
          contentType: "text/html; charset=utf-8",
          headers: {
            "content-security-policy": contentSecurityPolicy,
            // A browser may keep the page (its own copy: `private`, it carries the token) and asks each time
            // whether it still holds (`no-cache`; CompressedPages.ts answers 304 then): the invite's state changes it.
            "cache-control": found === undefined ? "no-store" : "private, no-cache",
            "referrer-policy": "no-referrer",
            "x-content-type-options": "nosniff",
            "x-frame-options": "DENY"
          }
        })
      })
    )
  })
)
