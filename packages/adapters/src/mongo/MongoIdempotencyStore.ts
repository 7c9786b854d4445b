/**
 * Idempotency keys in MongoDB (`idempotency_keys`, `_id` = scope:key). A claim is an insert (the unique `_id` makes it
 * atomic) or a takeover of a lapsed document (`Leases.take`), under a new fencing token; `lease_until` is the running
 * claim's lease, then the completed answer's retention. Completing and releasing act only for the token's holder.
 * `expiresAt` mirrors `lease_until` for a TTL index, so the server deletes old keys (a server that keeps them anyway is
 * harmless: the lease filter decides).
 */
import {
  type ClaimResult,
  type IdempotencyKey,
  IdempotencyStore,
  leaseMillis,
  retentionMillis,
  type StoredResponse
} from "@svc/domain/idempotency"
import { fencingTokenOf } from "@svc/domain/Lease"
import { Effect, Layer, Schema } from "effect"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"

interface KeyDocument extends Leases.LeaseFields {
  _id: string
  bodyHash: string
  state: "running" | "completed"
  /** When the document may be deleted (the TTL index's field). */
  expiresAt: Date
  response?: StoredResponse
}

/** What a claim reads of a key it could not take: the request it is for, and its answer once completed. */
const heldKeyOf = documentDecoder(
  "idempotency_keys",
  Schema.Struct({
    bodyHash: Schema.String,
    state: Schema.Literals(["running", "completed"]),
    // `null` once taken over: the earlier answer is gone.
    response: Schema.optional(
      Schema.NullOr(Schema.Struct({ status: Schema.Number, body: Schema.String, contentType: Schema.String }))
    )
  })
)

/** The MongoDB idempotency store. */
export const layer = Layer.effect(
  IdempotencyStore,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<KeyDocument>("idempotency_keys")
    yield* toPort(tryMongo(() => col.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 })))
    const leases = Leases.on(col)
    const id = (k: IdempotencyKey) => `${k.scope}:${k.key}`

    const claimOnce = (key: IdempotencyKey, bodyHash: string, now: number) =>
      Effect.gen(function* () {
        const until = now + leaseMillis
        // A key's document is deleted once lapsed, so a new one's first token is the time of its taking: larger than
        // any token of the one before it, whose holder may still be around (a request paused past its lease).
        const inserted = yield* tryMongo(() =>
          col.insertOne({
            _id: id(key),
            bodyHash,
            state: "running",
            lease_token: now,
            lease_until: until,
            expiresAt: new Date(until)
          })
        ).pipe(
          Effect.as(true),
          Effect.catchTag("DuplicateKey", () => Effect.succeed(false))
        )
        if (inserted) return { _tag: "Claimed", token: fencingTokenOf(now) } satisfies ClaimResult
        const taken = yield* leases.take(
          { _id: id(key) },
          { now, until, set: { bodyHash, state: "running", expiresAt: new Date(until), response: null } }
        )
        if (taken !== undefined) return { _tag: "Claimed", token: taken.token } satisfies ClaimResult
        const doc = yield* tryMongo(() => col.findOne({ _id: id(key) }))
        if (doc === null) return undefined
        const row = heldKeyOf(doc)
        if (row.bodyHash !== bodyHash) return { _tag: "Mismatch" } satisfies ClaimResult
        if (row.state === "running" || row.response == null) return { _tag: "Running" } satisfies ClaimResult
        return { _tag: "Completed", response: row.response } satisfies ClaimResult
      })

    return IdempotencyStore.of({
      claim: (key, bodyHash, now) =>
        // A key deleted (TTL) between the insert and the read is claimed on a second try.
        Effect.gen(function* () {
          const first = yield* claimOnce(key, bodyHash, now)
          if (first !== undefined) return first
          return (yield* claimOnce(key, bodyHash, now)) ?? ({ _tag: "Running" } satisfies ClaimResult)
        }).pipe(toPort),
      complete: (key, token, response, now) =>
        leases
          .whileHeld({ _id: id(key), state: "running" }, token, {
            $set: {
              state: "completed",
              response,
              lease_until: now + retentionMillis,
              expiresAt: new Date(now + retentionMillis)
            }
          })
          .pipe(Effect.asVoid, toPort),
      // A released key is free at once (`lease_until = 0`): the next claim takes it over.
      release: (key, token) => leases.release({ _id: id(key), state: "running" }, token).pipe(Effect.asVoid, toPort)
    })
  })
)
