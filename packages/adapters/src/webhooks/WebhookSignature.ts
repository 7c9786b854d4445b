/**
 * The signature headers of a delivery (DESIGN §5): Standard Webhooks (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature` with one `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` entry per live secret) and
 * `X-Svc-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "{t}.{body}">` (one `v1=` per live secret), both keyed with the
 * secret's decoded bytes.
 */
import { createHmac } from "node:crypto"
import type { WebhookSecret } from "@svc/domain/webhook"

/** The HMAC key of a secret: the bytes after `whsec_`, base64-decoded. */
export const keyOf = (secret: WebhookSecret): Buffer => Buffer.from(secret.slice("whsec_".length), "base64")

/** The headers of one attempt. */
export const signatureHeaders = (delivery: {
  readonly id: string
  readonly timestamp: number
  readonly body: string
  readonly secrets: ReadonlyArray<WebhookSecret>
}): Record<string, string> => {
  const keys = delivery.secrets.map(keyOf)
  const standard = `${delivery.id}.${delivery.timestamp}.${delivery.body}`
  const svc = `${delivery.timestamp}.${delivery.body}`
  return {
    "content-type": "application/json",
    "user-agent": "svc-webhooks/1",
    "webhook-id": delivery.id,
    "webhook-timestamp": String(delivery.timestamp),
    "webhook-signature": keys
      .map((key) => `v1,${createHmac("sha256", key).update(standard).digest("base64")}`)
      .join(" "),
    "x-svc-signature": [
      `t=${delivery.timestamp}`,
      ...keys.map((key) => `v1=${createHmac("sha256", key).update(svc).digest("hex")}`)
    ].join(",")
  }
}
