/**
 * Idempotency keys: the first request with a key claims it; the same key with the same body replays the stored
 * response, with another body is refused (422), while the first still runs is refused (409). Completed keys are kept
 * 24 hours; a claim whose request never finished (a crashed process) lapses after a lease. Each claim carries a random
 * token, and only its holder can complete or release it: a request whose lease lapsed and was taken over by a retry
 * cannot overwrite the retry's answer or free its key.
 */
import { randomUUID } from "node:crypto"
import { Context, Effect, Layer } from "effect"

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
  | { readonly _tag: "Claimed"; readonly token: string }
  | { readonly _tag: "Running" }
  | { readonly _tag: "Mismatch" }
  | { readonly _tag: "Completed"; readonly response: StoredResponse }

/** A key: who sent it (the caller's user id) and the key itself. */
export interface IdempotencyKey {
  readonly scope: string
  readonly key: string
}

/**
 * The key store. `claim` is atomic across replicas: of concurrent claims of one fresh or lapsed key, exactly one gets
 * `Claimed`, with a token naming that claim. `complete` and `release` act only while the token still holds the key
 * (a stale holder's call does nothing). Storage failures are defects.
 */
export class IdempotencyStore extends Context.Service<
  IdempotencyStore,
  {
    readonly claim: (key: IdempotencyKey, bodyHash: string, now: number) => Effect.Effect<ClaimResult>
    /** Keeps the answer of the claim `token` for replay. */
    readonly complete: (
      key: IdempotencyKey,
      token: string,
      response: StoredResponse,
      now: number
    ) => Effect.Effect<void>
    /** Gives the claim `token` up (the request failed on our side), so a retry runs again. */
    readonly release: (key: IdempotencyKey, token: string) => Effect.Effect<void>
  }
>()("@svc/adapters/http/IdempotencyStore") {
  /** In process memory. */
  static readonly layerMemory = Layer.sync(IdempotencyStore, () => {
    const rows = new Map<
      string,
      {
        bodyHash: string
        expiresAt: number
        state: "running" | "completed"
        token: string
        response?: StoredResponse
      }
    >()
    const id = (k: IdempotencyKey) => `${k.scope}:${k.key}`
    const held = (key: IdempotencyKey, token: string) => {
      const row = rows.get(id(key))
      return row !== undefined && row.state === "running" && row.token === token ? row : undefined
    }
    return IdempotencyStore.of({
      claim: (key, bodyHash, now) =>
        Effect.sync((): ClaimResult => {
          const row = rows.get(id(key))
          if (row === undefined || row.expiresAt <= now) {
            const token = randomUUID()
            rows.set(id(key), { bodyHash, expiresAt: now + leaseMillis, state: "running", token })
            return { _tag: "Claimed", token }
          }
          if (row.bodyHash !== bodyHash) return { _tag: "Mismatch" }
          if (row.state === "running" || row.response === undefined) return { _tag: "Running" }
          return { _tag: "Completed", response: row.response }
        }),
      complete: (key, token, response, now) =>
        Effect.sync(() => {
          const row = held(key, token)
          if (row !== undefined)
            rows.set(id(key), { ...row, state: "completed", response, expiresAt: now + retentionMillis })
        }),
      release: (key, token) =>
        Effect.sync(() => {
          if (held(key, token) !== undefined) rows.delete(id(key))
        })
    })
  })
}
