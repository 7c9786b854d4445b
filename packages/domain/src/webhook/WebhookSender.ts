/**
 * The outbound HTTP port of webhook delivery.
 */
import { Context, type Effect } from "effect"
import type { AttemptResult } from "./WebhookDelivery.ts"

/** One signed POST to make. */
export interface WebhookRequest {
  readonly url: string
  /** Signature and content headers, already computed (`webhook-id`, `webhook-timestamp`, `webhook-signature`, ...). */
  readonly headers: Readonly<Record<string, string>>
  /** The exact bytes that were signed. */
  readonly body: string
  readonly timeoutMillis: number
}

/**
 * Sends one delivery attempt. Implementations must POST `body` byte for byte with `headers`, follow no redirect,
 * give up after `timeoutMillis`, and report every failure as a `NoResponse` result (never an error).
 */
export class WebhookSender extends Context.Service<
  WebhookSender,
  { readonly send: (request: WebhookRequest) => Effect.Effect<AttemptResult> }
>()("@svc/domain/webhook/WebhookSender") {}
