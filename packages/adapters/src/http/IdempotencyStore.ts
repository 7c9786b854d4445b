/**
 * Idempotency keys: the first request with a key claims it; the same key with the same body replays the stored
 * response, with another body is refused (422), while the first still runs is refused (409). Completed keys are kept
 * 24 hours; a claim whose request never finished (a crashed process) lapses after a short lease.
 */
import { Context, Effect, Layer } from "effect"

/** How long a completed key replays (24 hours). */
export const retentionMillis = 24 * 60 * 60 * 1000
/** How long a running claim holds before another request may take it over. */
export const leaseMillis = 60 * 1000

/** A response kept for replay. */
export interface StoredResponse {
  readonly status: number
  readonly body: string
  readonly contentType: string
}

/** What claiming a key found. */
export type ClaimResult =
  | { readonly _tag: "Claimed" }
  | { readonly _tag: "Running" }
  | { readonly _tag: "Mismatch" }
  | { readonly _tag: "Completed"; readonly response: StoredResponse }

/** A key: who sent it (the caller's user id) and the key itself. */
export interface IdempotencyKey {
  readonly scope: string
  readonly key: string
}

/**
 * The key store. `claim` is atomic across replicas: of concurrent claims of one fresh key, exactly one gets `Claimed`.
 * Storage failures are defects.
 */
export class IdempotencyStore extends Context.Service<
  IdempotencyStore,
  {
    readonly claim: (key: IdempotencyKey, bodyHash: string, now: number) => Effect.Effect<ClaimResult>
    readonly complete: (key: IdempotencyKey, response: StoredResponse, now: number) => Effect.Effect<void>
    /** Gives a claim up (the request failed on our side), so a retry runs again. */
    readonly release: (key: IdempotencyKey) => Effect.Effect<void>
  }
>()("@svc/adapters/http/IdempotencyStore") {
  /** In process memory. */
  static readonly layerMemory = Layer.sync(IdempotencyStore, () => {
    const rows = new Map<
      string,
      { bodyHash: string; expiresAt: number; state: "running" | "completed"; response?: StoredResponse }
    >()
    const id = (k: IdempotencyKey) => `${k.scope}:${k.key}`
    return IdempotencyStore.of({
      claim: (key, bodyHash, now) =>
        Effect.sync((): ClaimResult => {
          const row = rows.get(id(key))
          if (row === undefined || row.expiresAt <= now) {
            rows.set(id(key), { bodyHash, expiresAt: now + leaseMillis, state: "running" })
            return { _tag: "Claimed" }
          }
          if (row.bodyHash !== bodyHash) return { _tag: "Mismatch" }
          if (row.state === "running" || row.response === undefined) return { _tag: "Running" }
          return { _tag: "Completed", response: row.response }
        }),
      complete: (key, response, now) =>
        Effect.sync(() => {
          const row = rows.get(id(key))
          if (row !== undefined)
            rows.set(id(key), { ...row, state: "completed", response, expiresAt: now + retentionMillis })
        }),
      release: (key) => Effect.sync(() => void rows.delete(id(key)))
    })
  })
}
