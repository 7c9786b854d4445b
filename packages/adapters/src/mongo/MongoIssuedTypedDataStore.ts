/**
 * Issued typed data in MongoDB (`issued_typed_data`, `_id` = salt). The claim is one atomic conditional `updateOne`
 * (`state: "issued"` -> `"executing"` with a lease and a random `lease_owner`), outside any transaction, so of
 * concurrent claims across replicas exactly one wins (docs/decisions/0017). The payments ledger writes the result on
 * the same document, for the `lease_owner` only.
 */
import { randomUUID } from "node:crypto"
import {
  AlreadyExecuted,
  type ClaimedTypedData,
  type IssuedTypedData,
  IssuedTypedDataStore,
  TypedDataNotFound
} from "@svc/domain/eip712"
import { executionLeaseMillis } from "@svc/domain/payment"
import { Effect, Layer } from "effect"
import { MongoDatabase } from "./MongoDatabase.ts"

/** The collection both this store and the payments ledger use. */
export const issuedCollection = "issued_typed_data"

/** A stored request: what was issued, and where its execution stands. */
export interface IssuedDocument {
  _id: string
  record: IssuedTypedData
  state: "issued" | "executing" | "executed"
  executedAt?: number
  leaseUntil?: number
  /** The claim token of whoever holds the `executing` claim (set by the claim and by a takeover). */
  lease_owner?: string
  result?: { transaction: string; payments: ReadonlyArray<unknown> }
  /** The signature it executed with (set with `result`). */
  signature?: string
}

/** The MongoDB issued typed data store. */
export const layer = Layer.effect(
  IssuedTypedDataStore,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<IssuedDocument>(issuedCollection)
    const find = (salt: string) =>
      Effect.promise(() => col.findOne({ _id: salt })).pipe(
        Effect.flatMap((doc) =>
          doc === null ? Effect.fail(new TypedDataNotFound({ salt })) : Effect.succeed(recordOf(doc))
        )
      )
    return IssuedTypedDataStore.of({
      issue: (record) =>
        Effect.promise(() => col.insertOne({ _id: record.salt, record, state: "issued" })).pipe(Effect.asVoid),
      find,
      claim: (salt, now) =>
        Effect.flatMap(
          Effect.sync(() => randomUUID()),
          (claimToken): Effect.Effect<ClaimedTypedData, TypedDataNotFound | AlreadyExecuted> =>
            // `updateOne` with the state in its filter: jongodb applies it atomically (its `findOneAndUpdate` is not).
            Effect.promise(() =>
              col.updateOne(
                { _id: salt, state: "issued" },
                {
                  $set: {
                    state: "executing",
                    executedAt: now,
                    leaseUntil: now + executionLeaseMillis,
                    lease_owner: claimToken
                  }
                }
              )
            ).pipe(
              Effect.flatMap((result) =>
                result.modifiedCount === 1
                  ? Effect.map(find(salt), (record) => ({ ...record, executedAt: now, claimToken }))
                  : Effect.flatMap(find(salt), () => Effect.fail(new AlreadyExecuted({ salt })))
              )
            )
        ),
      release: (salt, claimToken) =>
        Effect.promise(() =>
          col.updateOne(
            { _id: salt, state: "executing", lease_owner: claimToken },
            { $set: { state: "issued", executedAt: 0, leaseUntil: 0 }, $unset: { lease_owner: "" } }
          )
        ).pipe(Effect.asVoid)
    })
  })
)

const recordOf = (doc: IssuedDocument): IssuedTypedData =>
  doc.state === "issued" ? doc.record : { ...doc.record, executedAt: doc.executedAt ?? 0 }
