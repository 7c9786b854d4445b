/**
 * The payments ledger in SQLite: payments in `payments` (the record as JSON beside the columns queries use), results
 * on the issued request in `issued_requests`. Each change is one transaction (the use case's unit of work, with its
 * events, when it runs in one); who may act is decided by fencing tokens (`Leases.ts`, decision 0090) and `state`
 * guards in the same statements, the states moved as the issued-request and payment machines allow (decision 0091).
 */
import type { DatabaseSync, StatementSync } from "node:sqlite"
import { Uint256String } from "@svc/domain/Evm"
import { IssuedRequestMachine, PaymentEntry, TypedDataNotFound } from "@svc/domain/eip712"
import {
  type ExecutedRequest,
  type ExecutionOutcome,
  ExecutionResult,
  type LedgerQuery,
  Payment,
  PaymentLedger,
  PaymentMachine,
  PaymentNotFound
} from "@svc/domain/payment"
import { StaleState } from "@svc/domain/StaleState"
import { edge } from "@svc/domain/StateMachine"
import { isoOf } from "@svc/domain/Timestamp"
import { Effect, Layer, Schema } from "effect"
import * as Leases from "./Leases.ts"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"
import { issuedLeasesOn, issuedOf } from "./SqliteIssuedRequestStore.ts"

const decodePayment = RowDecoder.records("payments", Payment)
const paymentOf = (row: Record<string, unknown>): Payment => decodePayment(row.record)

const resultOf: (text: unknown, salt: string) => ExecutionResult = RowDecoder.json("issued_requests", ExecutionResult)

/**
 * An in-flight note as stored in `issued_requests.in_flight`, with the fencing token of the claim that wrote it. A
 * note from before tokens names a `holder` instead, and may have the result's own fields: it never matches a token.
 */
const StoredNote = Schema.Struct({
  token: Schema.optionalKey(Schema.Number),
  holder: Schema.optionalKey(Schema.String),
  result: Schema.optionalKey(ExecutionResult),
  transaction: Schema.optionalKey(Schema.String),
  payments: Schema.optionalKey(Schema.Array(PaymentEntry))
})

const storedNoteOf = RowDecoder.json("issued_requests", StoredNote)

/** The columns of `issued_requests` the ledger reads besides the record. */
const SaltColumns = Schema.Struct({ salt: Uint256String })
const saltOf = RowDecoder.rows("issued_requests", SaltColumns)

/**
 * The in-flight note of an executing request's row, when its current claim wrote it: a claim released and taken again
 * must not show the earlier holder's transaction.
 */
const noteOf = (row: Record<string, unknown>): ExecutionResult | undefined => {
  if (typeof row.in_flight !== "string") return undefined
  const stored = storedNoteOf(row.in_flight, String(row.salt))
  if (stored.token === undefined || stored.token !== Number(row.lease_token)) return undefined
  return stored.result ?? { transaction: stored.transaction ?? "", payments: stored.payments ?? [] }
}

/** The machines' moves this ledger writes, checked against their tables when the layer starts. */
const record = edge(IssuedRequestMachine, "executing", "record")

/** The filters of `list` that a query uses, as SQL conditions, in a fixed order (one statement per shape). */
const listConditions = (query: LedgerQuery) =>
  [
    query.intentsDueAfter === undefined
      ? "state IN (SELECT value FROM json_each(:states))"
      : "(state IN (SELECT value FROM json_each(:states)) OR (state = 'intent' AND pay_at_time > :intentsDueAfter))",
    query.payer === undefined ? undefined : "team_nanoid = :payer",
    query.notPayer === undefined ? undefined : "team_nanoid <> :notPayer",
    query.recipients === undefined ? undefined : "recipient_nanoid IN (SELECT value FROM json_each(:recipients))",
    query.signer === undefined ? undefined : "json_extract(record, '$.payer_nanoid') = :signer",
    query.createdFrom === undefined ? undefined : "created_at >= :createdFrom",
    query.createdTo === undefined ? undefined : "created_at <= :createdTo",
    query.after === undefined
      ? undefined
      : "(created_at < :afterCreated OR (created_at = :afterCreated AND nanoid < :afterNanoid))"
  ].filter((condition) => condition !== undefined)

/** The statements of the ledger, prepared once on the connection. */
const ledgerStatements = (connection: DatabaseSync) => {
  const executions = issuedLeasesOn(connection)
  const intents = Leases.on(connection, { table: "payments", row: "nanoid = :nanoid", key: "nanoid" })
  return {
    outcomeOf: connection.prepare(
      "SELECT salt, state, lease_until, lease_token, result, in_flight FROM issued_requests WHERE salt = ?"
    ),
    // Kept with its token: a claim released and taken again must not show the earlier holder's transaction.
    noteInFlight: executions.whileHeld({ when: "state = 'executing'", set: "in_flight = :inFlight" }),
    recordResult: executions.whileHeld({
      when: `state = '${record.from}'`,
      set: `state = '${record.to}', result = :result, lease_until = 0`
    }),
    // A payment noted in flight is replaced by the next version noted, then by the record; one of another request
    // (the same id) is not: the step fails and writes nothing.
    putPayment: connection.prepare(
      `INSERT INTO payments (nanoid, salt, team_nanoid, recipient_nanoid, state, pay_at_time, created_at, record)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (nanoid) DO UPDATE SET team_nanoid = excluded.team_nanoid,
         recipient_nanoid = excluded.recipient_nanoid, state = excluded.state, pay_at_time = excluded.pay_at_time,
         created_at = excluded.created_at, record = excluded.record, lease_until = 0
       WHERE payments.salt = excluded.salt`
    ),
    executingFor: connection.prepare(
      "SELECT 1 FROM issued_requests WHERE salt = ? AND state = 'executing' AND lease_token = ?"
    ),
    dropInFlight: connection.prepare("DELETE FROM payments WHERE salt = ? AND state = 'processing'"),
    leaseIntent: intents.takeMany({
      when: "state IN ('intent', 'scheduled') AND pay_at_time <= :dueBy",
      set: "state = 'scheduled', record = json_set(record, '$.state', 'scheduled', '$.updated_at', :updatedAt)",
      order: "pay_at_time, nanoid",
      returning: "record"
    }),
    // A merge patch of the record (state and patch) and the columns beside it, only from `from` (and, for a leased
    // intent, while its token is the runner's); the lease lapses with the move.
    transition: connection.prepare(
      `UPDATE payments SET state = :to, lease_until = 0, record = json_patch(record, :patch)
       WHERE nanoid = :nanoid AND state = :from AND (:token IS NULL OR lease_token = :token) RETURNING record`
    ),
    paymentExists: connection.prepare("SELECT 1 FROM payments WHERE nanoid = ?"),
    paymentById: connection.prepare("SELECT record FROM payments WHERE nanoid = ?"),
    executedSince: connection.prepare(
      `SELECT salt, record, state, executed_at, signature, result FROM issued_requests
       WHERE state = 'executed' AND executed_at >= ? ORDER BY executed_at, salt`
    )
  }
}

/** The ledger: its statements, the database, and the statements of `list` prepared so far (one per shape). */
interface Ledger extends ReturnType<typeof ledgerStatements> {
  readonly connection: DatabaseSync
  readonly transaction: SqliteDatabase["Service"]["transaction"]
  readonly listed: Map<string, StatementSync>
}

type Port = PaymentLedger["Service"]

const putPayments = (ledger: Ledger, payments: ReadonlyArray<Payment>) => {
  for (const p of payments) {
    const { changes } = ledger.putPayment.run(
      p.nanoid,
      p.salt,
      p.team_nanoid,
      p.recipient_nanoid ?? null,
      p.state,
      p.pay_at_time,
      p.created_at,
      JSON.stringify(p)
    )
    if (changes !== 1) throw new Error(`payment ${p.nanoid} belongs to another request`)
  }
}

const outcome = (ledger: Ledger, salt: string): Effect.Effect<ExecutionOutcome, TypedDataNotFound> => {
  const row = ledger.outcomeOf.get(salt)
  if (row === undefined) return Effect.fail(new TypedDataNotFound({ salt }))
  if (row.state === "executed" && typeof row.result === "string") {
    return Effect.succeed({ state: "executed", result: resultOf(row.result, salt) })
  }
  if (row.state === "executing") {
    const note = noteOf(row)
    return Effect.succeed({
      state: "executing",
      leaseUntil: Number(row.lease_until),
      ...(note === undefined ? {} : { inFlight: note })
    })
  }
  return Effect.succeed({ state: "issued" })
}

const noteInFlight = (ledger: Ledger, { salt, token, result, payments }: Parameters<Port["noteInFlight"]>[0]) =>
  ledger.transaction(() => {
    const inFlight = JSON.stringify({ result, token } satisfies typeof StoredNote.Type)
    if (!ledger.noteInFlight({ salt, token, inFlight })) return false
    putPayments(ledger, payments)
    return true
  })

const recordExecution = (ledger: Ledger, { salt, token, result, payments }: Parameters<Port["recordExecution"]>[0]) =>
  ledger.transaction(() => {
    // Only the holder records; a holder whose claim was taken over writes nothing.
    if (!ledger.recordResult({ salt, token, result: JSON.stringify(result) })) return false
    putPayments(ledger, payments)
    return true
  })

const transition = (
  ledger: Ledger,
  [id, from, to, patch, token]: Parameters<Port["transition"]>
): Effect.Effect<Payment, PaymentNotFound | StaleState> => {
  if (!PaymentMachine.allows(from, to))
    return Effect.die(new Error(`a payment moves from ${from} to ${to}: not in the table`))
  const row = ledger.transition.get({
    nanoid: id,
    from,
    to,
    token: token ?? null,
    patch: JSON.stringify({ ...patch, state: to })
  })
  if (row !== undefined) return Effect.succeed(paymentOf(row))
  return ledger.paymentExists.get(id) === undefined
    ? Effect.fail(new PaymentNotFound({ nanoid: id }))
    : Effect.fail(new StaleState({ resource: "payment", id, expected: from }))
}

/** The parameters of `list`'s statement for `query`. */
const listParameters = (query: LedgerQuery): Leases.Parameters => {
  const parameters: Leases.Parameters = { states: JSON.stringify(query.states) }
  if (query.payer !== undefined) parameters.payer = query.payer
  if (query.notPayer !== undefined) parameters.notPayer = query.notPayer
  if (query.recipients !== undefined) parameters.recipients = JSON.stringify(query.recipients)
  if (query.signer !== undefined) parameters.signer = query.signer
  if (query.createdFrom !== undefined) parameters.createdFrom = isoOf(query.createdFrom * 1000)
  if (query.createdTo !== undefined) parameters.createdTo = isoOf(query.createdTo * 1000 + 999)
  if (query.intentsDueAfter !== undefined) parameters.intentsDueAfter = query.intentsDueAfter
  if (query.after !== undefined) {
    parameters.afterCreated = query.after.created_at
    parameters.afterNanoid = query.after.nanoid
  }
  if (query.limit !== undefined) parameters.limit = query.limit
  return parameters
}

const list = (ledger: Ledger, query: LedgerQuery): ReadonlyArray<Payment> => {
  const sql = `SELECT record FROM payments WHERE ${listConditions(query).join(" AND ")}
               ORDER BY created_at DESC, nanoid DESC${query.limit === undefined ? "" : " LIMIT :limit"}`
  let statement = ledger.listed.get(sql)
  if (statement === undefined) {
    statement = ledger.connection.prepare(sql)
    ledger.listed.set(sql, statement)
  }
  return statement.all(listParameters(query)).map(paymentOf)
}

const executedSince = (ledger: Ledger, sinceMillis: number): ReadonlyArray<ExecutedRequest> =>
  ledger.executedSince.all(sinceMillis).map(
    (row): ExecutedRequest => ({
      salt: saltOf(row).salt,
      issued: issuedOf(row),
      signature: String(row.signature ?? ""),
      result: resultOf(row.result, String(row.salt)),
      claimedAt: Number(row.executed_at)
    })
  )

const leaseDueIntent = (ledger: Ledger, { now, nowMillis, leaseUntil }: Parameters<Port["leaseDueIntent"]>[0]) => {
  const [row] = ledger.leaseIntent({
    now: nowMillis,
    until: leaseUntil,
    limit: 1,
    dueBy: now,
    updatedAt: isoOf(now * 1000)
  })
  return row === undefined ? undefined : { payment: paymentOf(row), lease: Leases.leaseOf(row, leaseUntil) }
}

/** The SQLite payments ledger. */
export const layer = Layer.effect(
  PaymentLedger,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const ledger: Ledger = { ...ledgerStatements(connection), connection, transaction, listed: new Map() }
    return PaymentLedger.of({
      outcome: (salt) => Effect.suspend(() => outcome(ledger, salt)),
      noteInFlight: (note) => Effect.sync(() => noteInFlight(ledger, note)),
      // While executing, the only payments of the salt are those noted in flight.
      dropInFlight: (salt, token) =>
        Effect.sync(() =>
          transaction(() => {
            if (ledger.executingFor.get(salt, token) === undefined) return false
            ledger.dropInFlight.run(salt)
            return true
          })
        ),
      recordExecution: (execution) => Effect.sync(() => recordExecution(ledger, execution)),
      leaseDueIntent: (due) => Effect.sync(() => leaseDueIntent(ledger, due)),
      transition: (...args) => Effect.suspend(() => transition(ledger, args)),
      find: (id) =>
        Effect.sync(() => {
          const row = ledger.paymentById.get(id)
          return row === undefined ? undefined : paymentOf(row)
        }),
      list: (query) => Effect.sync(() => list(ledger, query)),
      executedSince: (sinceMillis) => Effect.sync(() => executedSince(ledger, sinceMillis))
    })
  })
)
