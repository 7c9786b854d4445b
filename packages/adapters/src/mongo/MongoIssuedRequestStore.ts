/**
 * Issued typed data in MongoDB (`issued_typed_data`, `_id` = salt), and its execution's life: each move of the
 * issued-request machine (`claim`, `release`, `takeOver`, `reopen`; `record` is the ledger's) is one conditional
 * `updateOne` on the stored state and, for a holder's moves, the claim's fencing token (`Leases.ts`, decisions 0017,
 * 0090 and 0091), outside any transaction, so of concurrent claims across replicas exactly one wins, and a holder whose
 * claim was taken over changes nothing.
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
      Effect.promise(async () => {
        const lease = await leases.take(
          { _id: salt, state: moves.claim.from },
          { now, until, set: { state: moves.claim.to, executedAt: now, signature, in_flight: null } }
        )
        const doc = await col.findOne({ _id: salt })
        return { lease, doc }
      }).pipe(
        Effect.flatMap(({ lease, doc }): Effect.Effect<ClaimedTypedData, TypedDataNotFound | AlreadyClaimed> => {
          if (doc === null) return Effect.fail(new TypedDataNotFound({ salt }))
          if (lease === undefined) return Effect.fail(new AlreadyClaimed({ salt }))
          return Effect.succeed(claimedOf(doc, lease))
        })
      ),
    renew: (salt, token, until) =>
      Effect.promise(() => leases.renew({ _id: salt, state: moves.takeOver.from }, token, until)).pipe(
        Effect.map(Option.fromNullishOr)
      ),
    release: (salt, token) =>
      Effect.promise(() =>
        leases.release({ _id: salt, state: moves.release.from }, token, {
          state: moves.release.to,
          executedAt: 0,
          signature: null,
          in_flight: null
        })
      ),
    takeOver: (salt, now, until) =>
      Effect.promise(async () => {
        const lease = await leases.take(
          { _id: salt, state: moves.takeOver.from },
          { now, until, set: { state: moves.takeOver.to } }
        )
        const doc = lease === undefined ? null : await col.findOne({ _id: salt, lease_token: lease.token })
        return lease === undefined || doc === null ? Option.none() : Option.some(claimedOf(doc, lease))
      }),
    // The result it had is its transaction in flight meanwhile, under the new token.
    reopen: (salt, now, until) =>
      Effect.promise(async () => {
        const before = await col.findOne({ _id: salt, state: moves.reopen.from })
        if (before === null) return Option.none()
        const token = (before.lease_token ?? 0) + 1
        const lease = await leases.take(
          { _id: salt, state: moves.reopen.from },
          { now, until, set: { state: moves.reopen.to, in_flight: { token, result: before.result } } }
        )
        const doc = lease === undefined ? null : await col.findOne({ _id: salt, lease_token: lease.token })
        return lease === undefined || doc === null ? Option.none() : Option.some(claimedOf(doc, lease, true))
      }),
    abandoned: (now, limit) =>
      Effect.promise(() =>
        col
          .find({ state: "executing", lease_until: { $lte: now } })
          .sort({ executedAt: 1, _id: 1 })
          .limit(limit)
          .toArray()
      ).pipe(Effect.map((docs) => docs.map((doc) => ({ salt: doc._id, issued: issuedOf(doc) }))))
  }
  return claims
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
      ...claimsOf(col)
    })
  })
)
