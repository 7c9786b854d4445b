/** Webhook delivery: signing, the HTTP sender, and signing secrets sealed at rest. */
export * as HttpWebhookSender from "./HttpWebhookSender.ts"
export * as WebhookSecretBox from "./WebhookSecretBox.ts"
export { keyOf, signatureHeaders } from "./WebhookSignature.ts"
