/**
 * Issued typed data in MongoDB (`issued_typed_data`, `_id` = salt). The claim takes the document's lease
 * (`Leases.take`: `issued` -> `executing`, under a fresh holder token, the claim token) with one conditional
 * `updateOne` outside any transaction, so of concurrent claims across replicas exactly one wins
 * (docs/decisions/0017). The payments ledger takes executions over and writes their results on the same document,
 * for the holder only.
 *
 * A team's budget of unexecuted requests is kept without transactions: a new request is inserted first, then the
 * team's unexecuted, unexpired requests are summed, and the new one is deleted again if they exceed the budget. Every
 * request that stays saw itself and all earlier ones within budget, so the team is never left over it; concurrent
 * issues near the limit may all be refused (each sees the others).
 */
import {
  AlreadyClaimed,
  type ClaimedTypedData,
  expiryOf,
  IssuedRequestStore,
  IssuedRequestsLimit,
  type IssuedTypedData,
  PaymentEntry,
  storedBytesOf,
  TypedDataNotFound
} from "@svc/domain/eip712"
import { ExecutionResult, executionLeaseMillis, IssuedTypedDataRecord } from "@svc/domain/payment"
import { Effect, Layer, Schema } from "effect"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder } from "./MongoDocuments.ts"

/** The collection both this store and the payments ledger use. */
export const issuedCollection = "issued_typed_data"

/** A stored request: what was issued, where its execution stands, and the lease of its execution. */
export interface IssuedDocument extends Leases.LeaseFields {
  _id: string
  record: IssuedTypedData
  state: "issued" | "executing" | "executed"
  /** The record's team, its typed data's expiry (unix seconds) and stored size, for budgets and the sweep. */
  team?: string
  expires?: number
  bytes?: number
  executedAt?: number
  result?: { transaction: string; payments: ReadonlyArray<unknown> }
  /** The signature it executed with (set with `result`). */
  signature?: string
  /**
   * The transaction it has in flight while executing, with the signature and the claim token that noted it (decision
   * 0061). Notes from before signatures were kept hold the result's fields (`transaction`, `payments`) instead.
   */
  in_flight?: {
    result?: { transaction: string; payments: ReadonlyArray<unknown> }
    signature?: string
    transaction?: string
    payments?: ReadonlyArray<unknown>
    holder: string
  }
}

/** An in-flight note; one from before signatures were kept has the result's own fields beside `holder`. */
const StoredNote = Schema.Struct({
  holder: Schema.String,
  result: Schema.optional(ExecutionResult),
  signature: Schema.optional(Schema.String),
  transaction: Schema.optional(Schema.String),
  payments: Schema.optional(Schema.Array(PaymentEntry))
})

/** Where a stored request's execution stands: every field of its document but the record. */
const StoredExecution = Schema.Struct({
  _id: Schema.String,
  state: Schema.Literals(["issued", "executing", "executed"]),
  lease_holder: Schema.optional(Schema.String),
  lease_until: Schema.Number,
  executedAt: Schema.optional(Schema.Number),
  result: Schema.optional(ExecutionResult),
  signature: Schema.optional(Schema.String),
  in_flight: Schema.optional(StoredNote)
})
export type StoredExecution = typeof StoredExecution.Type

/** The execution state of a stored request, decoded. */
export const executionOf = documentDecoder(issuedCollection, StoredExecution)

/** The stored size of a request (`held` reads only it). */
const bytesOf = documentDecoder(issuedCollection, Schema.Struct({ bytes: Schema.optional(Schema.Number) }))

/** The issued record a document holds, decoded with the domain's schema. */
const recordOf = documentDecoder(issuedCollection, Schema.Struct({ record: IssuedTypedDataRecord }))

/** The issued record of a document, with `claimedAt` once claimed (stored as `executedAt`). */
export const issuedOf = (doc: IssuedDocument): IssuedTypedData => {
  const { state, executedAt } = executionOf(doc)
  const record: IssuedTypedData = recordOf(doc).record
  return state === "issued" ? record : { ...record, claimedAt: executedAt ?? 0 }
}

/** The MongoDB issued typed data store. */
export const layer = Layer.effect(
  IssuedRequestStore,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<IssuedDocument>(issuedCollection)
    yield* Effect.promise(() => col.createIndex({ state: 1, executedAt: 1 }))
    yield* Effect.promise(() => col.createIndex({ team: 1, state: 1, expires: 1 }))
    yield* Effect.promise(() => col.createIndex({ state: 1, expires: 1 }))
    const leases = Leases.on(col)
    const find = (salt: string) =>
      Effect.promise(() => col.findOne({ _id: salt })).pipe(
        Effect.flatMap((doc) =>
          doc === null ? Effect.fail(new TypedDataNotFound({ salt })) : Effect.succeed(issuedOf(doc))
        )
      )
    const insert = (record: IssuedTypedData, bytes: number) =>
      col.insertOne({
        _id: record.salt,
        record,
        state: "issued",
        team: record.team,
        expires: expiryOf(record),
        bytes,
        lease_until: 0
      })
    /** The team's unexecuted requests unexpired at `nowSeconds`: how many, and their bytes. */
    const held = async (team: string, nowSeconds: number) => {
      const docs = await col
        .find({ team, state: "issued", expires: { $gt: nowSeconds } }, { projection: { bytes: 1 } })
        .toArray()
      return { count: docs.length, bytes: docs.reduce((sum, doc) => sum + (bytesOf(doc).bytes ?? 0), 0) }
    }
    return IssuedRequestStore.of({
      issue: (record) => Effect.promise(() => insert(record, storedBytesOf(record))).pipe(Effect.asVoid),
      issueWithin: (record, budget) =>
        Effect.promise(async () => {
          await insert(record, storedBytesOf(record))
          const total = await held(record.team, Math.floor(budget.now / 1000))
          if (total.count <= budget.maxCount && total.bytes <= budget.maxBytes) return true
          await col.deleteOne({ _id: record.salt, state: "issued" })
          return false
        }).pipe(
          Effect.flatMap((kept) => (kept ? Effect.void : Effect.fail(new IssuedRequestsLimit({ team: record.team }))))
        ),
      held: (team, now) => Effect.promise(() => held(team, Math.floor(now / 1000))),
      removeExpired: (cutoff, limit) =>
        Effect.promise(async () => {
          const expired = await col
            .find({ state: "issued", expires: { $lte: cutoff } }, { projection: { _id: 1 } })
            .limit(limit)
            .toArray()
          if (expired.length === 0) return 0
          const { deletedCount } = await col.deleteMany({
            _id: { $in: expired.map((doc) => doc._id) },
            state: "issued"
          })
          return deletedCount
        }),
      find,
      claim: (salt, now) =>
        Effect.promise(() =>
          leases.take(
            { _id: salt, state: "issued" },
            { now, until: now + executionLeaseMillis, set: { state: "executing", executedAt: now } }
          )
        ).pipe(
          Effect.flatMap(
            (lease): Effect.Effect<ClaimedTypedData, TypedDataNotFound | AlreadyClaimed> =>
              lease === undefined
                ? Effect.flatMap(find(salt), () => Effect.fail(new AlreadyClaimed({ salt })))
                : Effect.map(find(salt), (record) => ({ ...record, claimedAt: now, claimToken: lease.holder }))
          )
        ),
      release: (salt, claimToken) =>
        Effect.promise(() =>
          leases.release({ _id: salt, state: "executing" }, claimToken, { state: "issued", executedAt: 0 })
        ).pipe(Effect.asVoid)
    })
  })
)
