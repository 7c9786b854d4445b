/**
 * Idempotency keys in MongoDB (`idempotency_keys`, `_id` = scope:key). A claim is an insert (the unique `_id` makes it
 * atomic) or a conditional takeover of a lapsed document; `expiresAt` is filtered on, and a TTL index lets a real
 * mongod delete old keys (jongodb keeps them, which the filter makes harmless). Every claim writes a fresh `token`;
 * completing and releasing filter on it, so a holder whose claim was taken over changes nothing.
 */
import { randomUUID } from "node:crypto"
import { Effect, Layer } from "effect"
import { MongoServerError } from "mongodb"
import {
  type ClaimResult,
  type IdempotencyKey,
  IdempotencyStore,
  leaseMillis,
  retentionMillis,
  type StoredResponse
} from "../http/IdempotencyStore.ts"
import { MongoDatabase } from "./MongoDatabase.ts"

interface KeyDocument {
  _id: string
  bodyHash: string
  state: "running" | "completed"
  /** Names the claim holding the key; completing or releasing needs it. */
  token: string
  expiresAt: Date
  response?: StoredResponse
}

/** The MongoDB idempotency store. */
export const layer = Layer.effect(
  IdempotencyStore,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<KeyDocument>("idempotency_keys")
    yield* Effect.promise(() => col.createIndex({ expiresAt: 1 }, { expireAfterSeconds: 0 }))
    const id = (k: IdempotencyKey) => `${k.scope}:${k.key}`

    const claimOnce = async (key: IdempotencyKey, bodyHash: string, now: number): Promise<ClaimResult | undefined> => {
      const token = randomUUID()
      const expiresAt = new Date(now + leaseMillis)
      try {
        await col.insertOne({ _id: id(key), bodyHash, state: "running", token, expiresAt })
        return { _tag: "Claimed", token }
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === 11000)) throw error
      }
      // A conditional `updateOne` decides the takeover: jongodb applies it atomically, its `findOneAndUpdate` not.
      const takenOver = await col.updateOne(
        { _id: id(key), expiresAt: { $lte: new Date(now) } },
        { $set: { bodyHash, state: "running", token, expiresAt }, $unset: { response: "" } }
      )
      if (takenOver.modifiedCount === 1) return { _tag: "Claimed", token }
      const row = await col.findOne({ _id: id(key) })
      if (row === null) return undefined
      if (row.bodyHash !== bodyHash) return { _tag: "Mismatch" }
      if (row.state === "running" || row.response === undefined) return { _tag: "Running" }
      return { _tag: "Completed", response: row.response }
    }

    return IdempotencyStore.of({
      claim: (key, bodyHash, now) =>
        Effect.promise(
          async () =>
            (await claimOnce(key, bodyHash, now)) ?? (await claimOnce(key, bodyHash, now)) ?? { _tag: "Running" }
        ),
      complete: (key, token, response, now) =>
        Effect.promise(() =>
          col.updateOne(
            { _id: id(key), token, state: "running" },
            { $set: { state: "completed", response, expiresAt: new Date(now + retentionMillis) } }
          )
        ).pipe(Effect.asVoid),
      release: (key, token) =>
        Effect.promise(() => col.deleteOne({ _id: id(key), token, state: "running" })).pipe(Effect.asVoid)
    })
  })
)
