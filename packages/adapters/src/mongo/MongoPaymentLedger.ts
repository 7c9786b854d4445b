/**
 * The payments ledger in MongoDB: payments in `payments` (`_id` = nanoid), results on the issued request in
 * `issued_typed_data`. Each change is one transaction (the use case's unit of work, with its events, when it runs in
 * one); races are settled by single conditional updates (fencing tokens, `Leases.ts`, and `state` guards), never by
 * transaction conflicts (docs/decisions/0017, 0090), the states moved as the machines allow (decision 0091).
 */

import type { Uint256String } from "@svc/domain/Evm"
import type { TypedDataNotFound as TypedDataNotFoundType } from "@svc/domain/eip712"
import { IssuedRequestMachine, TypedDataNotFound } from "@svc/domain/eip712"
import type { PaymentId } from "@svc/domain/Ids"
import type { FencingToken } from "@svc/domain/Lease"
import {
  type ExecutedRequest,
  type ExecutionOutcome,
  type ExecutionRecord,
  ExecutionResult,
  type InFlightNote,
  type LedgerQuery,
  Payment,
  PaymentLedger,
  PaymentMachine,
  PaymentNotFound,
  type PaymentPatch,
  type PaymentState
} from "@svc/domain/payment"
import { StaleState } from "@svc/domain/StaleState"
import { edge } from "@svc/domain/StateMachine"
import { isoOf } from "@svc/domain/Timestamp"
import { Effect, Layer, Schema } from "effect"
import type { Collection, Filter } from "mongodb"
import * as Leases from "./Leases.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder, recordDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import {
  executionOf,
  type IssuedDocument,
  issuedCollection,
  issuedOf,
  type StoredExecution
} from "./MongoIssuedRequestStore.ts"
import { inTransaction, type TransactionRunner, unitOptions } from "./MongoTransaction.ts"

/** A stored payment: the record plus the intent runner's lease. */
interface PaymentDocument extends Payment, Leases.LeaseFields {
  _id: string
}

const paymentOf = recordDecoder("payments", Payment)

/** An executed request's document: its result is recorded with its state. */
const executedOf = documentDecoder(
  issuedCollection,
  Schema.Struct({
    _id: Schema.String,
    result: ExecutionResult,
    signature: Schema.optional(Schema.String),
    executedAt: Schema.optional(Schema.Number)
  })
)

/**
 * The in-flight note of an executing request, when its current claim wrote it: a claim released and taken again must
 * not show the earlier holder's transaction. Notes from before tokens name a `holder`: they match no token.
 */
const noteOf = (execution: StoredExecution): ExecutionResult | undefined => {
  const stored = execution.in_flight
  if (stored === null || stored?.token === undefined || stored.token !== (execution.lease_token ?? 0)) return undefined
  return stored.result ?? { transaction: stored.transaction ?? "", payments: stored.payments ?? [] }
}

/** The issued-request machine's move this ledger writes, checked against its table when the module loads. */
const recordMove = edge(IssuedRequestMachine, "executing", "record")

/** The collections the ledger touches, and the leases on them. */
interface LedgerCollections {
  readonly transaction: TransactionRunner
  readonly payments: Collection<PaymentDocument>
  readonly issued: Collection<IssuedDocument>
  /** Executions: the issued requests' leases. */
  readonly executions: Leases.Leases<IssuedDocument>
  /** Due intents: the payments' leases. */
  readonly intents: Leases.Leases<PaymentDocument>
}

const outcome = (collections: LedgerCollections, salt: Uint256String) =>
  tryMongo(() => collections.issued.findOne({ _id: salt })).pipe(
    Effect.flatMap((doc): Effect.Effect<ExecutionOutcome, TypedDataNotFoundType> => {
      if (doc === null) return Effect.fail(new TypedDataNotFound({ salt }))
      const execution = executionOf(doc)
      if (execution.state === "executed" && execution.result !== undefined) {
        return Effect.succeed({ state: "executed", result: execution.result })
      }
      if (execution.state === "executing") {
        const note = noteOf(execution)
        return Effect.succeed({
          state: "executing",
          leaseUntil: execution.lease_until,
          ...(note === undefined ? {} : { inFlight: note })
        })
      }
      return Effect.succeed({ state: "issued" })
    })
  )

/**
 * Two writes, no transaction (each PUT notes its transaction): the claim's first, then the payments, only as long as
 * they are `processing` (a record that got there first is left alone: its insert is a duplicate).
 */
const noteInFlight = (collections: LedgerCollections, { salt, token, result, payments: records }: InFlightNote) =>
  Effect.gen(function* () {
    const held = yield* collections.executions.whileHeld({ _id: salt, state: "executing" }, token, {
      $set: { in_flight: { result, token } }
    })
    if (!held) return false
    for (const p of records) {
      yield* Leases.setOrMake(
        collections.payments,
        { _id: p.nanoid, salt, state: "processing" },
        { ...p, lease_until: 0 }
      )
    }
    return true
  })

const recordExecution = (collections: LedgerCollections, { salt, token, result, payments: records }: ExecutionRecord) =>
  inTransaction(collections.transaction, (session) =>
    Effect.gen(function* () {
      // Only the holder records: a holder whose claim was taken over writes nothing. The payments replace those
      // noted in flight.
      const held = yield* collections.executions.whileHeld(
        { _id: salt, state: recordMove.from },
        token,
        { $set: { state: recordMove.to, result, lease_until: 0 } },
        session
      )
      if (!held) return false
      for (const p of records) {
        // Another request's payment of the same id is not replaced: the insert is a duplicate, and nothing is kept.
        yield* tryMongo(() =>
          collections.payments.replaceOne({ _id: p.nanoid, salt }, { ...p, lease_until: 0 }, { session, upsert: true })
        )
      }
      return true
    })
  )

const leaseDueIntent = (
  collections: LedgerCollections,
  { now, nowMillis, leaseUntil }: { now: number; nowMillis: number; leaseUntil: number }
) =>
  collections.intents
    .takeNext(
      { state: { $in: ["intent", "scheduled"] }, pay_at_time: { $lte: now } },
      {
        sort: { pay_at_time: 1, _id: 1 },
        now: nowMillis,
        until: leaseUntil,
        set: { state: "scheduled", updated_at: isoOf(now * 1000) }
      }
    )
    .pipe(Effect.map((taken) => (taken === null ? undefined : { payment: paymentOf(taken.doc), lease: taken.lease })))

/** The move of a payment from `from` (for a leased intent, while `token` is its current one), then the payment. */
const transition = (
  collections: LedgerCollections,
  { id, from, to, token }: { id: PaymentId; from: PaymentState; to: PaymentState; token: FencingToken | undefined },
  patch: PaymentPatch
) =>
  Effect.gen(function* () {
    if (!PaymentMachine.allows(from, to)) {
      return yield* Effect.die(new Error(`a payment moves from ${from} to ${to}: not in the table`))
    }
    const { payments } = collections
    const options = yield* unitOptions
    const moved = yield* tryMongo(() =>
      payments.findOneAndUpdate(
        { _id: id, state: from, ...(token === undefined ? {} : { lease_token: token }) },
        { $set: { ...patch, state: to, lease_until: 0 } },
        { ...options, returnDocument: "after" }
      )
    )
    if (moved !== null) return paymentOf(moved)
    const found = yield* tryMongo(() => payments.findOne({ _id: id }, options))
    return yield* found === null
      ? Effect.fail(new PaymentNotFound({ nanoid: id }))
      : Effect.fail(new StaleState({ resource: "payment", id, expected: from }))
  })

/** The filter of a ledger query. */
const filterOf = (query: LedgerQuery): Filter<PaymentDocument> => {
  const filter: Record<string, unknown> = {}
  const alternatives: Array<Record<string, unknown>> = []
  if (query.intentsDueAfter === undefined) filter.state = { $in: [...query.states] }
  else {
    alternatives.push({
      $or: [{ state: { $in: [...query.states] } }, { state: "intent", pay_at_time: { $gt: query.intentsDueAfter } }]
    })
  }
  if (query.after !== undefined) {
    const { created_at, nanoid } = query.after
    alternatives.push({ $or: [{ created_at: { $lt: created_at } }, { created_at, _id: { $lt: nanoid } }] })
  }
  if (alternatives.length > 0) filter.$and = alternatives
  if (query.payer !== undefined) filter.team_nanoid = query.payer
  if (query.notPayer !== undefined) filter.team_nanoid = { $ne: query.notPayer }
  if (query.recipients !== undefined) filter.recipient_nanoid = { $in: [...query.recipients] }
  if (query.signer !== undefined) filter.payer_nanoid = query.signer
  const created: Record<string, string> = {}
  if (query.createdFrom !== undefined) created.$gte = isoOf(query.createdFrom * 1000)
  if (query.createdTo !== undefined) created.$lte = isoOf(query.createdTo * 1000 + 999)
  if (Object.keys(created).length > 0) filter.created_at = created
  return filter as Filter<PaymentDocument>
}

const list = (collections: LedgerCollections, query: LedgerQuery) =>
  tryMongo(() =>
    collections.payments
      .find(filterOf(query))
      .sort({ created_at: -1, _id: -1 })
      .limit(query.limit ?? 0)
      .toArray()
  ).pipe(Effect.map((docs) => docs.map(paymentOf)))

const executedSince = (collections: LedgerCollections, sinceMillis: number) =>
  tryMongo(() =>
    collections.issued
      .find({ state: "executed", executedAt: { $gte: sinceMillis } })
      .sort({ executedAt: 1, _id: 1 })
      .toArray()
  ).pipe(
    Effect.map((docs) =>
      docs.map((doc): ExecutedRequest => {
        const { _id, signature, result, executedAt } = executedOf(doc)
        return { salt: _id, issued: issuedOf(doc), signature: signature ?? "", result, claimedAt: executedAt ?? 0 }
      })
    )
  )

/** The MongoDB payments ledger; indexes by team, recipient, state and due time are created at start. */
export const layer = Layer.effect(
  PaymentLedger,
  Effect.gen(function* () {
    const { db, transaction } = yield* MongoDatabase
    const payments = db.collection<PaymentDocument>("payments")
    const issued = db.collection<IssuedDocument>(issuedCollection)
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          payments.createIndex({ team_nanoid: 1, created_at: -1 }),
          payments.createIndex({ recipient_nanoid: 1, created_at: -1 }),
          payments.createIndex({ state: 1, pay_at_time: 1 }),
          payments.createIndex({ salt: 1 })
        ])
      )
    )
    const executions = Leases.on(issued)
    const collections: LedgerCollections = {
      transaction,
      payments,
      issued,
      executions,
      intents: Leases.on(payments)
    }
    return PaymentLedger.of({
      outcome: (salt) => toPort(outcome(collections, salt)),
      noteInFlight: (note) => toPort(noteInFlight(collections, note)),
      dropInFlight: (salt, token) =>
        Effect.gen(function* () {
          const executing = yield* tryMongo(() => issued.findOne({ _id: salt, state: "executing", lease_token: token }))
          if (executing === null) return false
          yield* tryMongo(() => payments.deleteMany({ salt, state: "processing" }))
          return true
        }).pipe(toPort),
      recordExecution: (record) => toPort(recordExecution(collections, record)),
      leaseDueIntent: (options) => toPort(leaseDueIntent(collections, options)),
      transition: (id, from, to, patch, token) => toPort(transition(collections, { id, from, to, token }, patch)),
      find: (id) =>
        tryMongo(() => payments.findOne({ _id: id })).pipe(
          Effect.map((doc) => (doc === null ? undefined : paymentOf(doc))),
          toPort
        ),
      list: (query) => toPort(list(collections, query)),
      executedSince: (sinceMillis) => toPort(executedSince(collections, sinceMillis))
    })
  })
)
