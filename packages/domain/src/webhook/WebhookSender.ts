/**
 * The outbound ports of webhook delivery: signing and sending one attempt, and keeping signing secrets sealed.
 */
import { Context, type Effect } from "effect"
import type { AttemptResult } from "./WebhookDelivery.ts"
import type { WebhookSecret } from "./WebhookEndpoint.ts"

/** One attempt to make: what to sign and where to send it. */
export interface OutgoingDelivery {
  readonly url: string
  /** `webhook-id`: the delivery's id, the same on every attempt. */
  readonly id: string
  /** `webhook-timestamp`, unix seconds. */
  readonly timestamp: number
  /** The exact bytes that are signed and sent. */
  readonly body: string
  /** Every live secret: each signs (one `v1,` entry each in `webhook-signature`). */
  readonly secrets: ReadonlyArray<WebhookSecret>
  readonly timeoutMillis: number
}

/**
 * Signs and sends one attempt. Implementations must sign as Standard Webhooks and `X-Svc-Signature` say (DESIGN §5),
 * POST `body` byte for byte, refuse an address `WebhookUrlPolicy` forbids (checked on the resolved address), follow
 * no redirect, give up after `timeoutMillis` (reading the answer's body included), read at most `maxResponseBytes` of
 * the answer and keep its start (`ResponseBody`, never logged: it is the receiver's), and report every failure as a
 * `NoResponse` result (never an error).
 */
export class WebhookSender extends Context.Service<
  WebhookSender,
  { readonly send: (delivery: OutgoingDelivery) => Effect.Effect<AttemptResult> }
>()("@svc/domain/webhook/WebhookSender") {}

/**
 * Seals signing secrets for storage and opens them to sign (the API must sign, so it cannot keep only a hash).
 * Implementations encrypt with a key from configuration, never stored beside the data.
 */
export class WebhookSecretBox extends Context.Service<
  WebhookSecretBox,
  {
    readonly seal: (secret: WebhookSecret) => Effect.Effect<string>
    readonly open: (sealed: string) => Effect.Effect<WebhookSecret>
  }
>()("@svc/domain/webhook/WebhookSecretBox") {}
