/**
 * Which delivery URLs and addresses a deployment accepts (DESIGN §5b): `https` in production; never link-local
 * (169.254.0.0/16, fe80::/10), unspecified (`0.0.0.0`, `::`) or multicast; loopback and private ranges only when
 * allowed (`WEBHOOK_ALLOW_PRIVATE_URLS`, the default in embedded mode only). The URL is checked when an endpoint is
 * created or changed, and the address its host resolves to before each delivery (DNS rebinding).
 */
import { Context, Layer, Schema } from "effect"
import { type ErrorCode, messageField } from "../errors/ErrorCatalog.ts"
import { withArticle } from "../Text.ts"

/** What a deployment accepts. */
export interface WebhookUrlRules {
  /** Only `https` URLs (production). */
  readonly requireHttps: boolean
  /** Loopback and private addresses (embedded mode by default). */
  readonly allowPrivate: boolean
}

/** The rules of this deployment, as a service. */
export class WebhookUrlPolicy extends Context.Service<WebhookUrlPolicy, WebhookUrlRules>()(
  "@svc/domain/webhook/WebhookUrlPolicy"
) {
  /** The given rules. */
  static readonly layer = (rules: WebhookUrlRules) => Layer.succeed(WebhookUrlPolicy, rules)
}

/** The URL or the address it resolves to is not allowed here. */
export class InvalidWebhookUrl extends Schema.TaggedError<InvalidWebhookUrl>()("InvalidWebhookUrl", {
  message: messageField("INVALID_WEBHOOK_URL")
}) {
  /** The API error code. */
  get errorCode(): ErrorCode {
    return "INVALID_WEBHOOK_URL"
  }
}

/** What kind of address an IP literal is. */
export type AddressClass = "public" | "private" | "loopback" | "link-local" | "unspecified" | "multicast" | "invalid"

const ipv4Of = (address: string): ReadonlyArray<number> | undefined => {
  const parts = address.split(".")
  if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p))) return undefined
  const bytes = parts.map(Number)
  return bytes.every((b) => b <= 255) ? bytes : undefined
}

/**
 * The class of an IPv4 address, after IANA's IPv4 Special-Purpose Address Registry: whatever is not globally
 * reachable there is `private` (allowed only with `allowPrivate`), but for what is never a delivery target.
 */
const classOfIpv4 = ([a = 0, b = 0, c = 0]: ReadonlyArray<number>): AddressClass => {
  if (a === 0) return "unspecified" // 0.0.0.0/8 "this network"
  if (a === 127) return "loopback"
  if (a === 169 && b === 254) return "link-local"
  if (a >= 224) return "multicast" // 224/4 multicast, 240/4 reserved, 255.255.255.255 broadcast
  if (
    a === 10 ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127) || // shared address space (CGNAT)
    (a === 192 && b === 0 && c === 0) || // IETF protocol assignments
    (a === 192 && b === 0 && c === 2) || // documentation (TEST-NET-1)
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) || // documentation (TEST-NET-2)
    (a === 203 && b === 0 && c === 113) || // documentation (TEST-NET-3)
    (a === 192 && b === 88 && c === 99) // deprecated 6to4 relay anycast
  )
    return "private"
  return "public"
}

/** The 8 groups of an IPv6 literal (brackets allowed), or `undefined` when it is not one. */
const ipv6Of = (address: string): ReadonlyArray<number> | undefined => {
  let text = address.replace(/^\[|\]$/g, "").toLowerCase()
  if (!text.includes(":")) return undefined
  const zone = text.indexOf("%")
  if (zone >= 0) text = text.slice(0, zone)
  // A trailing dotted IPv4 (::ffff:1.2.3.4) becomes two groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted?.[1] !== undefined) {
    const v4 = ipv4Of(dotted[1])
    if (v4 === undefined) return undefined
    const [a = 0, b = 0, c = 0, d = 0] = v4
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return undefined
  const groupsOf = (s: string) => (s === "" ? [] : s.split(":"))
  const head = groupsOf(halves[0] ?? "")
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? "") : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill("0"), ...tail]
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined
  return groups.map((g) => Number.parseInt(g, 16))
}

/** The class of an IP address (v4 or v6, as DNS answers it or as a URL's host writes it). */
export const addressClassOf = (address: string): AddressClass => {
  const v4 = ipv4Of(address)
  if (v4 !== undefined) return classOfIpv4(v4)
  const v6 = ipv6Of(address)
  if (v6 === undefined) return "invalid"
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = v6
  if (v6.every((g) => g === 0)) return "unspecified"
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 1) return "loopback"
  const embedded = (high: number, low: number) => classOfIpv4([high >> 8, high & 0xff, low >> 8, low & 0xff])
  // Forms that carry an IPv4 address: the IPv4 address decides (IPv4-mapped ::ffff:a.b.c.d, the deprecated
  // IPv4-compatible ::a.b.c.d, the NAT64 well-known prefix 64:ff9b::/96, and 6to4 2002:AABB:CCDD::/16).
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0)) return embedded(g6, g7)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return embedded(g6, g7)
  if (g0 === 0x2002) return embedded(g1, g2)
  if ((g0 & 0xffc0) === 0xfe80) return "link-local"
  if ((g0 & 0xff00) === 0xff00) return "multicast"
  // IANA's IPv6 Special-Purpose Address Registry, what is not globally reachable: unique local fc00::/7, site-local
  // fec0::/10 (deprecated), local-use NAT64 64:ff9b:1::/48, discard-only 100::/64, IETF protocol assignments
  // 2001::/23 (Teredo 2001::/32, benchmarking 2001:2::/48, ORCHID 2001:10::/28 and 2001:20::/28 among them), and
  // documentation 2001:db8::/32 and 3fff::/20.
  if ((g0 & 0xfe00) === 0xfc00) return "private"
  if ((g0 & 0xffc0) === 0xfec0) return "private"
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return "private"
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return "private"
  if (g0 === 0x2001 && g1 < 0x200) return "private"
  if (g0 === 0x2001 && g1 === 0xdb8) return "private"
  if (g0 === 0x3fff && g1 < 0x1000) return "private"
  return "public"
}

/**
 * What a deployment's rules accept, as its refusals say it (issue 35: embedded mode takes `http://127.0.0.1`, so a
 * refusal there must not ask for https).
 */
export const acceptedUrlsOf = (rules: WebhookUrlRules): string =>
  `${rules.requireHttps ? "https URLs" : "http and https URLs"}${
    rules.allowPrivate ? ", loopback and private addresses included" : " to public addresses only"
  }`

/** Why an address may not receive deliveries under `rules`, or `undefined` when it may. */
export const addressRefusal = (address: string, rules: WebhookUrlRules): string | undefined => {
  const kind = addressClassOf(address)
  switch (kind) {
    case "public":
      return undefined
    case "private":
    case "loopback":
      return rules.allowPrivate
        ? undefined
        : `The webhook URL must not point to ${withArticle(kind)} address: this server accepts ${acceptedUrlsOf(rules)}`
    case "invalid":
      return "The webhook URL's host is not a valid address"
    default:
      return `The webhook URL must never point to ${withArticle(kind)} address`
  }
}

/**
 * The URL as it is stored: parsed and normalised (WHATWG `href`: lower-case scheme and host, punycode, default port
 * dropped, an empty path as `/`), or why it is refused. Whitespace or control characters anywhere, which the parser
 * would silently strip or encode, and a user name or password, are refused rather than normalised away.
 */
export const normalizedWebhookUrl = (
  url: string,
  rules: WebhookUrlRules
): { readonly url: string } | { readonly refusal: string } => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  if (/[\u0000-\u0020\u007f-\u00a0\u2028\u2029\ufeff]/.test(url)) {
    return { refusal: "The webhook URL must not contain spaces or control characters" }
  }
  const parsed = URL.parse(url)
  if (parsed !== null && (parsed.username !== "" || parsed.password !== "")) {
    return { refusal: "The webhook URL must not carry a user name or password" }
  }
  const refusal = urlRefusal(url, rules)
  return refusal !== undefined || parsed === null
    ? { refusal: refusal ?? "The webhook URL is not a URL" }
    : { url: parsed.href }
}

/** Why `url` may not be an endpoint under `rules` (its scheme, or its host when that is an address), or `undefined`. */
export const urlRefusal = (url: string, rules: WebhookUrlRules): string | undefined => {
  const parsed = URL.parse(url)
  const accepted = `this server accepts ${acceptedUrlsOf(rules)}`
  if (parsed === null) return `The webhook URL must be an absolute URL: ${accepted}`
  if (parsed.protocol !== "https:" && (rules.requireHttps || parsed.protocol !== "http:")) {
    return `The webhook URL's scheme ${parsed.protocol.slice(0, -1)} is not accepted: ${accepted}`
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, "")
  if (host === "localhost" || host.endsWith(".localhost")) {
    return rules.allowPrivate ? undefined : `The webhook URL must not point to a loopback address: ${accepted}`
  }
  const literal = ipv4Of(host) !== undefined || host.includes(":")
  // A name is checked on the address it resolves to, at each delivery.
  return literal ? addressRefusal(host, rules) : undefined
}
