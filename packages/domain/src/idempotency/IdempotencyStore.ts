/**
 * Idempotency keys: the first request with a key claims it; the same key with the same body replays the stored
 * response, with another body is refused (422), while the first still runs is refused (409). Completed keys are kept
 * 24 hours; a claim whose request never finished (a crashed process) lapses after a lease. Each claim carries a fencing
 * token (decision 0090), and only its holder can complete or release it: a request whose lease lapsed and was taken over by a retry
 * cannot overwrite the retry's answer or free its key.
 */
import { Context, type Effect } from "effect"
import type { FencingToken } from "../Lease.ts"

/** How long a completed key replays (24 hours). */
export const retentionMillis = 24 * 60 * 60 * 1000
/**
 * How long a running claim holds before another request may take it over: longer than the slowest handler, PUT
 * /v2/payments (up to 120 s for a receipt plus 30 s waiting for another replica), so only a request whose process
 * died loses its key. A lapse is still safe against overwrites (the claim token), not against running twice.
 */
export const leaseMillis = 5 * 60 * 1000

/** A response kept for replay. */
export interface StoredResponse {
  readonly status: number
  readonly body: string
  readonly contentType: string
}

/** What claiming a key found. */
export type ClaimResult =
  | { readonly _tag: "Claimed"; readonly token: FencingToken }
  | { readonly _tag: "Running" }
  | { readonly _tag: "Mismatch" }
  | { readonly _tag: "Completed"; readonly response: StoredResponse }

/** A key: who sent it (the caller's user id) and the key itself. */
export interface IdempotencyKey {
  readonly scope: string
  readonly key: string
}

/**
 * The key store. `claim` is atomic across replicas: of concurrent claims of one fresh or lapsed key (a running claim
 * after `leaseMillis`, a completed one after `retentionMillis`), exactly one gets `Claimed`, with a token naming that
 * claim. `complete` and `release` act only while the token still holds the key (a stale holder's call does nothing).
 * Storage failures are defects.
 */
export class IdempotencyStore extends Context.Service<
  IdempotencyStore,
  {
    readonly claim: (key: IdempotencyKey, bodyHash: string, now: number) => Effect.Effect<ClaimResult>
    /** Keeps the answer of the claim `token` for replay. */
    readonly complete: (
      key: IdempotencyKey,
      token: FencingToken,
      response: StoredResponse,
      now: number
    ) => Effect.Effect<void>
    /** Gives the claim `token` up (the request failed on our side), so a retry runs again. */
    readonly release: (key: IdempotencyKey, token: FencingToken) => Effect.Effect<void>
  }
>()("@svc/domain/idempotency/IdempotencyStore") {}
