/**
 * Issued typed data in MongoDB (`issued_typed_data`, `_id` = salt). The claim takes the document's lease
 * (`Leases.take`: `issued` -> `executing`, under a fresh holder token, the claim token) with one conditional write
 * outside any transaction, acknowledged by a majority, so of concurrent claims across replicas exactly one wins and
 * the win survives an election (docs/decisions/0017, 0096). The payments ledger takes executions over and writes their
 * results on the same document, for the holder only.
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
import { toPort, tryMongo } from "./MongoErrors.ts"

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

/** What a claim answers: the record under its claim token, or `AlreadyClaimed` (`TypedDataNotFound` if none). */
const claimed = <E>(
  found: Effect.Effect<IssuedTypedData, E>,
  lease: { readonly holder: string } | undefined,
  now: number
): Effect.Effect<ClaimedTypedData, E | AlreadyClaimed> =>
  Effect.flatMap(found, (record) =>
    lease === undefined
      ? Effect.fail(new AlreadyClaimed({ salt: record.salt }))
      : Effect.succeed({ ...record, claimedAt: now, claimToken: lease.holder })
  )

/** The MongoDB issued typed data store. */
export const layer = Layer.effect(
  IssuedRequestStore,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<IssuedDocument>(issuedCollection)
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          col.createIndex({ state: 1, executedAt: 1 }),
          col.createIndex({ team: 1, state: 1, expires: 1 }),
          col.createIndex({ state: 1, expires: 1 })
        ])
      )
    )
    const leases = Leases.on(col)
    const find = (salt: string) =>
      tryMongo(() => col.findOne({ _id: salt })).pipe(
        Effect.flatMap((doc) =>
          doc === null ? Effect.fail(new TypedDataNotFound({ salt })) : Effect.succeed(issuedOf(doc))
        )
      )
    const insert = (record: IssuedTypedData, bytes: number) =>
      tryMongo(() =>
        col.insertOne({
          _id: record.salt,
          record,
          state: "issued",
          team: record.team,
          expires: expiryOf(record),
          bytes,
          lease_until: 0
        })
      )
    /** The team's unexecuted requests unexpired at `nowSeconds`: how many, and their bytes. */
    const held = (team: string, nowSeconds: number) =>
      tryMongo(() =>
        col.find({ team, state: "issued", expires: { $gt: nowSeconds } }, { projection: { bytes: 1 } }).toArray()
      ).pipe(
        Effect.map((docs) => ({
          count: docs.length,
          bytes: docs.reduce((sum, doc) => sum + (bytesOf(doc).bytes ?? 0), 0)
        }))
      )
    return IssuedRequestStore.of({
      issue: (record) => insert(record, storedBytesOf(record)).pipe(Effect.asVoid, toPort),
      issueWithin: (record, budget) =>
        Effect.gen(function* () {
          yield* insert(record, storedBytesOf(record))
          const total = yield* held(record.team, Math.floor(budget.now / 1000))
          if (total.count <= budget.maxCount && total.bytes <= budget.maxBytes) return
          yield* tryMongo(() => col.deleteOne({ _id: record.salt, state: "issued" }))
          return yield* new IssuedRequestsLimit({ team: record.team })
        }).pipe(toPort),
      held: (team, now) => toPort(held(team, Math.floor(now / 1000))),
      removeExpired: (cutoff, limit) =>
        Effect.gen(function* () {
          const expired = yield* tryMongo(() =>
            col
              .find({ state: "issued", expires: { $lte: cutoff } }, { projection: { _id: 1 } })
              .limit(limit)
              .toArray()
          )
          if (expired.length === 0) return 0
          const { deletedCount } = yield* tryMongo(() =>
            col.deleteMany({ _id: { $in: expired.map((doc) => doc._id) }, state: "issued" })
          )
          return deletedCount
        }).pipe(toPort),
      find: (salt) => toPort(find(salt)),
      claim: (salt, now) =>
        leases
          .take(
            { _id: salt, state: "issued" },
            { now, until: now + executionLeaseMillis, set: { state: "executing", executedAt: now } }
          )
          .pipe(
            Effect.flatMap((lease) => claimed(find(salt), lease, now)),
            toPort
          ),
      release: (salt, claimToken) =>
        leases
          .release({ _id: salt, state: "executing" }, claimToken, { state: "issued", executedAt: 0 })
          .pipe(Effect.asVoid, toPort)
    })
  })
)
