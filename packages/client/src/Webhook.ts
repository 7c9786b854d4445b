/**
 * Webhook verification (Standard Webhooks, as svc signs its deliveries): the HMAC-SHA256 of
 * `webhook-id.webhook-timestamp.body` under the endpoint's secret, one of the `v1,<base64>` signatures of the
 * `webhook-signature` header, sent within the tolerance of now. During a rotation the service signs with both secrets,
 * so either verifies; a receiver that holds both passes both.
 */
import { createHmac, timingSafeEqual } from "node:crypto"

/** Why a delivery was refused. */
export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError"
}

/** The headers of a delivery: a plain object (any case) or a `Headers`. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

const headerOf = (headers: WebhookHeaders, name: string): string | undefined => {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined
  for (const [key, value] of Object.entries(headers as Record<string, string | ReadonlyArray<string> | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(" ") : (value as string | undefined)
  }
  return undefined
}

const keyOf = (secret: string) => Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64")

/**
 * The HMAC keys of the secrets, refusing an empty one: HMAC accepts an empty key, so a missing environment variable
 * (`""`, or `"whsec_"` from a template) would verify anything signed with no key. Standard Webhooks' libraries refuse
 * it when the verifier is made; here it is the call.
 */
const keysOf = (secret: string | ReadonlyArray<string>): ReadonlyArray<Buffer> => {
  // Read from the environment, a secret may be `undefined` whatever the types say: refused like an empty one.
  const secrets: ReadonlyArray<unknown> = Array.isArray(secret) ? secret : [secret]
  if (secrets.length === 0)
    throw new WebhookVerificationError("no webhook secret given: pass the endpoint's whsec_ secret")
  return secrets.map((one) => {
    const key = typeof one === "string" ? keyOf(one) : Buffer.alloc(0)
    if (key.length === 0) {
      throw new WebhookVerificationError(
        "the webhook secret is empty: pass the endpoint's whsec_ secret (is its environment variable set?)"
      )
    }
    return key
  })
}

/**
 * Verifies a delivery and answers its parsed event; throws `WebhookVerificationError` when the secret is empty, no
 * signature matches, the headers are missing, it was sent more than `toleranceSeconds` (default 300) from now, or
 * its body is not JSON. Pass the body exactly as received, before any JSON parsing.
 */
export const verifyWebhook = <Event = Record<string, unknown>>(options: {
  readonly secret: string | ReadonlyArray<string>
  readonly body: string | Uint8Array
  readonly headers: WebhookHeaders
  readonly toleranceSeconds?: number
  readonly now?: Date
}): Event => {
  const keys = keysOf(options.secret)
  const id = headerOf(options.headers, "webhook-id")
  const timestamp = headerOf(options.headers, "webhook-timestamp")
  const signatures = headerOf(options.headers, "webhook-signature")
  if (id === undefined || timestamp === undefined || signatures === undefined) {
    throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature")
  }
  const sent = Number(timestamp)
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000)
  if (!Number.isInteger(sent) || Math.abs(now - sent) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError("the delivery's timestamp is too far from now")
  }
  const body = typeof options.body === "string" ? Buffer.from(options.body) : Buffer.from(options.body)
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`), body])
  const expected = keys.map((key) => createHmac("sha256", key).update(signed).digest())
  const matches = signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",")
    if (version !== "v1" || value === undefined) return false
    const given = Buffer.from(value, "base64")
    return expected.some((digest) => digest.length === given.length && timingSafeEqual(digest, given))
  })
  if (!matches) throw new WebhookVerificationError("no signature matches the secret")
  try {
    return JSON.parse(body.toString("utf8")) as Event
  } catch {
    throw new WebhookVerificationError("the delivery's body is not a JSON event")
  }
}
