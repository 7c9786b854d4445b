/**
 * Issued typed data in MongoDB (`issued_typed_data`, `_id` = salt), and its execution's life: each move of the
 * issued-request machine (`claim`, `release`, `takeOver`, `reopen`; `record` is the ledger's) is one conditional write
 * on the stored state and, for a holder's moves, the claim's fencing token (`Leases.ts`, decisions 0017, 0090, 0091),
 * outside any transaction, acknowledged by a majority, so of concurrent claims across replicas exactly one wins, the
 * win survives an election (0096), and a holder whose claim was taken over changes nothing.
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
  IssuedRequestMachine,
  IssuedRequestStore,
  IssuedRequestsLimit,
  type IssuedTypedData,
  PaymentEntry,
  storedBytesOf,
  TypedDataNotFound
} from "@svc/domain/eip712"
import type { Lease } from "@svc/domain/Lease"
import { ExecutionResult, IssuedTypedDataRecord } from "@svc/domain/payment"
import { edge } from "@svc/domain/StateMachine"
import { Effect, Layer, Option, Schema } from "effect"
import type { Collection } from "mongodb"
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
  /** The signature it is executed with (set by its claim). */
  signature?: string | null
  /**
   * The transaction it has in flight while executing, with the fencing token of the claim that noted it (decision
   * 0061). Notes from before tokens name a `holder`, and may hold the result's fields instead: they match no token.
   */
  in_flight?: {
    result?: { transaction: string; payments: ReadonlyArray<unknown> }
    transaction?: string
    payments?: ReadonlyArray<unknown>
    holder?: string
    token?: number
  } | null
}

/** An in-flight note, with the token of the claim that wrote it. */
const StoredNote = Schema.Struct({
  token: Schema.optional(Schema.Number),
  holder: Schema.optional(Schema.String),
  result: Schema.optional(ExecutionResult),
  transaction: Schema.optional(Schema.String),
  payments: Schema.optional(Schema.Array(PaymentEntry))
})

/** Where a stored request's execution stands: every field of its document but the record. */
const StoredExecution = Schema.Struct({
  _id: Schema.String,
  state: Schema.Literals(["issued", "executing", "executed"]),
  lease_token: Schema.optional(Schema.Number),
  lease_until: Schema.Number,
  executedAt: Schema.optional(Schema.Number),
  result: Schema.optional(ExecutionResult),
  // Cleared (null) by a claim and a release.
  signature: Schema.optional(Schema.NullOr(Schema.String)),
  in_flight: Schema.optional(Schema.NullOr(StoredNote))
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

/** The machine's moves this store writes, checked against its table when the module loads. */
const moves = {
  claim: edge(IssuedRequestMachine, "issued", "claim"),
  release: edge(IssuedRequestMachine, "executing", "release"),
  takeOver: edge(IssuedRequestMachine, "executing", "takeOver"),
  reopen: edge(IssuedRequestMachine, "executed", "reopen")
} as const

/** The claimed record of a document its holder took under `lease`. */
const claimedOf = (doc: IssuedDocument, lease: Lease, reopened = false): ClaimedTypedData => ({
  ...issuedOf(doc),
  claim: { ...lease, claimedAt: doc.executedAt ?? 0 },
  signature: doc.signature ?? "",
  ...(reopened ? { reopened } : {})
})

/** The execution's moves (`claim`, `renew`, `release`, `takeOver`, `reopen`) and the abandoned ones, on `col`. */
const claimsOf = (col: Collection<IssuedDocument>) => {
  const leases = Leases.on(col)
  const claims: Pick<
    IssuedRequestStore["Service"],
    "claim" | "renew" | "release" | "takeOver" | "reopen" | "abandoned"
  > = {
    claim: (salt, { now, until, signature }) =>
      Effect.gen(function* () {
        const taken = yield* leases.takeNext(
          { _id: salt, state: moves.claim.from },
          { now, until, sort: { _id: 1 }, set: { state: moves.claim.to, executedAt: now, signature, in_flight: null } }
        )
        if (taken !== null) return claimedOf(taken.doc, taken.lease)
        const exists = (yield* tryMongo(() => col.findOne({ _id: salt }, { projection: { _id: 1 } }))) !== null
        return yield* exists ? new AlreadyClaimed({ salt }) : new TypedDataNotFound({ salt })
      }).pipe(toPort),
    renew: (salt, token, until) =>
      leases
        .renew({ _id: salt, state: moves.takeOver.from }, token, until)
        .pipe(Effect.map(Option.fromNullishOr), toPort),
    release: (salt, token) =>
      leases
        .release({ _id: salt, state: moves.release.from }, token, {
          state: moves.release.to,
          executedAt: 0,
          signature: null,
          in_flight: null
        })
        .pipe(toPort),
    takeOver: (salt, now, until) =>
      leases
        .takeNext(
          { _id: salt, state: moves.takeOver.from },
          { now, until, sort: { _id: 1 }, set: { state: moves.takeOver.to } }
        )
        .pipe(
          Effect.map((taken) => (taken === null ? Option.none() : Option.some(claimedOf(taken.doc, taken.lease)))),
          toPort
        ),
    // The result it had is its transaction in flight meanwhile, noted under the new token.
    reopen: (salt, now, until) =>
      Effect.gen(function* () {
        const taken = yield* leases.takeNext(
          { _id: salt, state: moves.reopen.from },
          { now, until, sort: { _id: 1 }, set: { state: moves.reopen.to } }
        )
        if (taken === null) return Option.none()
        const token = taken.lease.token
        const { result } = taken.doc
        yield* leases.whileHeld({ _id: salt }, token, {
          $set: { in_flight: { token, ...(result === undefined ? {} : { result }) } }
        })
        return Option.some(claimedOf(taken.doc, taken.lease, true))
      }).pipe(toPort),
    abandoned: (now, limit) =>
      tryMongo(() =>
        col
          .find({ state: "executing", lease_until: { $lte: now } })
          .sort({ executedAt: 1, _id: 1 })
          .limit(limit)
          .toArray()
      ).pipe(
        Effect.map((docs) => docs.map((doc) => ({ salt: doc._id, issued: issuedOf(doc) }))),
        toPort
      )
  }
  return claims
}

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
      ...claimsOf(col)
    })
  })
)
