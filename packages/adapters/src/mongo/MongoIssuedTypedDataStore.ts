/**
 * Issued typed data in MongoDB (`issued_typed_data`, `_id` = salt). The claim takes the document's lease
 * (`Leases.take`: `issued` -> `executing`, under a fresh holder token, the claim token) with one conditional
 * `updateOne` outside any transaction, so of concurrent claims across replicas exactly one wins
 * (docs/decisions/0017). The payments ledger takes executions over and writes their results on the same document,
 * for the holder only.
 */
import {
  AlreadyExecuted,
  type ClaimedTypedData,
  type IssuedTypedData,
  IssuedTypedDataStore,
  TypedDataNotFound
} from "@svc/domain/eip712"
import { executionLeaseMillis } from "@svc/domain/payment"
import { Effect, Layer } from "effect"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"

/** The collection both this store and the payments ledger use. */
export const issuedCollection = "issued_typed_data"

/** A stored request: what was issued, where its execution stands, and the lease of its execution. */
export interface IssuedDocument extends Leases.LeaseFields {
  _id: string
  record: IssuedTypedData
  state: "issued" | "executing" | "executed"
  executedAt?: number
  result?: { transaction: string; payments: ReadonlyArray<unknown> }
  /** The signature it executed with (set with `result`). */
  signature?: string
}

/** The issued record of a document, with `executedAt` once claimed. */
export const issuedOf = (doc: IssuedDocument): IssuedTypedData =>
  doc.state === "issued" ? doc.record : { ...doc.record, executedAt: doc.executedAt ?? 0 }

/** The MongoDB issued typed data store. */
export const layer = Layer.effect(
  IssuedTypedDataStore,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<IssuedDocument>(issuedCollection)
    yield* Effect.promise(() => col.createIndex({ state: 1, executedAt: 1 }))
    const leases = Leases.on(col)
    const find = (salt: string) =>
      Effect.promise(() => col.findOne({ _id: salt })).pipe(
        Effect.flatMap((doc) =>
          doc === null ? Effect.fail(new TypedDataNotFound({ salt })) : Effect.succeed(issuedOf(doc))
        )
      )
    return IssuedTypedDataStore.of({
      issue: (record) =>
        Effect.promise(() => col.insertOne({ _id: record.salt, record, state: "issued", lease_until: 0 })).pipe(
          Effect.asVoid
        ),
      find,
      claim: (salt, now) =>
        Effect.promise(() =>
          leases.take(
            { _id: salt, state: "issued" },
            { now, until: now + executionLeaseMillis, set: { state: "executing", executedAt: now } }
          )
        ).pipe(
          Effect.flatMap(
            (lease): Effect.Effect<ClaimedTypedData, TypedDataNotFound | AlreadyExecuted> =>
              lease === undefined
                ? Effect.flatMap(find(salt), () => Effect.fail(new AlreadyExecuted({ salt })))
                : Effect.map(find(salt), (record) => ({ ...record, executedAt: now, claimToken: lease.holder }))
          )
        ),
      release: (salt, claimToken) =>
        Effect.promise(() =>
          leases.release({ _id: salt, state: "executing" }, claimToken, { state: "issued", executedAt: 0 })
        ).pipe(Effect.asVoid)
    })
  })
)
