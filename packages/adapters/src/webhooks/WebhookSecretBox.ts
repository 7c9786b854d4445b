/**
 * Signing secrets sealed at rest with AES-256-GCM (decision 0024): the API must sign with each endpoint's secret, so
 * it cannot keep a hash only. The key comes from configuration (`WEBHOOK_SECRET_KEY` in production; in embedded mode
 * a random key kept in the data directory beside the JWT secret), never from the database, so a copy of the database
 * alone reveals no secret. A sealed secret is `v1.<base64url of iv (12 bytes), tag (16 bytes), ciphertext>`.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto"
import { type WebhookSecret, WebhookSecretBox } from "@svc/domain/webhook"
import { Effect, Layer, Redacted } from "effect"

/** The AES key of a configured key: its SHA-256 (any string of at least 32 characters serves). */
const aesKeyOf = (key: Redacted.Redacted<string>) => createHash("sha256").update(Redacted.value(key)).digest()

/** Seals with `key`; a sealed value that does not open under it (another key, tampering) is a defect. */
export const layer = (key: Redacted.Redacted<string>) =>
  Layer.sync(WebhookSecretBox, () => {
    const aes = aesKeyOf(key)
    return WebhookSecretBox.of({
      seal: (secret) =>
        Effect.sync(() => {
          const iv = randomBytes(12)
          const cipher = createCipheriv("aes-256-gcm", aes, iv)
          const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()])
          return `v1.${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url")}`
        }),
      open: (sealed) =>
        Effect.try({
          try: () => {
            if (!sealed.startsWith("v1.")) throw new Error("unknown sealing")
            const bytes = Buffer.from(sealed.slice(3), "base64url")
            const decipher = createDecipheriv("aes-256-gcm", aes, bytes.subarray(0, 12))
            decipher.setAuthTag(bytes.subarray(12, 28))
            return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString(
              "utf8"
            ) as WebhookSecret
          },
          catch: () => new Error("A webhook secret does not open with WEBHOOK_SECRET_KEY: was the key changed?")
        }).pipe(Effect.orDie)
    })
  })

/** A fresh random key, for embedded mode's first start and for tests. */
export const newKey = (): string => randomBytes(32).toString("base64url")
