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
 * Verifies a delivery and answers its parsed event; throws `WebhookVerificationError` when no signature matches, the
 * headers are missing, or it was sent more than `toleranceSeconds` (default 300) from now. Pass the body exactly as
 * received, before any JSON parsing.
 */
export const verifyWebhook = <Event = Record<string, unknown>>(options: {
  readonly secret: string | ReadonlyArray<string>
  readonly body: string | Uint8Array
  readonly headers: WebhookHeaders
  readonly toleranceSeconds?: number
  readonly now?: Date
}): Event => {
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
  const secrets = typeof options.secret === "string" ? [options.secret] : options.secret
  const expected = secrets.map((secret) => createHmac("sha256", keyOf(secret)).update(signed).digest())
  const matches = signatures.split(" ").some((entry) => {
    const [version, value] = entry.split(",")
    if (version !== "v1" || value === undefined) return false
    const given = Buffer.from(value, "base64")
    return expected.some((digest) => digest.length === given.length && timingSafeEqual(digest, given))
  })
  if (!matches) throw new WebhookVerificationError("no signature matches the secret")
  return JSON.parse(body.toString("utf8")) as Event
}
