/**
 * Invoices in SQLite (`invoices`): the record as JSON beside the columns the list filters and sorts on, unique on
 * (team, member, number). A transition is one of the machine's moves, in one transaction that applies only at the
 * state and revision it names, and joins the use case's unit of work (where its events, or the payment that pays it,
 * are written with it).
 */
import type { DatabaseSync } from "node:sqlite"
import type { InvoiceId } from "@svc/domain/Ids"
import {
  changedInvoice,
  Invoice,
  type InvoiceChange,
  type InvoiceListQuery,
  InvoiceMachine,
  InvoiceNotFound,
  InvoiceNumberTaken,
  InvoiceRepository,
  type InvoiceState
} from "@svc/domain/invoice"
import { StaleState } from "@svc/domain/StaleState"
import { Effect, Layer } from "effect"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

const decodeInvoice = RowDecoder.records("invoices", Invoice)
const invoiceOf = (row: Record<string, unknown>): Invoice => decodeInvoice(row.record)

/** The statements of the invoices store, prepared once on the connection. */
const statements = (connection: DatabaseSync) => ({
  // A taken number is an answer (no row inserted); a taken id is still a constraint error, a defect.
  insert: connection.prepare(
    `INSERT INTO invoices (nanoid, team_nanoid, recipient_nanoid, invoice_number, state, revision, created_at, record)
     VALUES (:nanoid, :team_nanoid, :recipient_nanoid, :invoice_number, :state, :revision, :created_at, :record)
     ON CONFLICT (team_nanoid, recipient_nanoid, invoice_number) DO NOTHING`
  ),
  update: connection.prepare(
    `UPDATE invoices SET state = :state, revision = :revision, record = :record
     WHERE nanoid = :nanoid AND state = :from AND revision = :expected`
  ),
  find: connection.prepare("SELECT record FROM invoices WHERE nanoid = ?"),
  findMany: connection.prepare("SELECT record FROM invoices WHERE nanoid IN (SELECT value FROM json_each(?))"),
  list: connection.prepare(
    `SELECT record FROM invoices WHERE team_nanoid = :team
     AND (:recipient IS NULL OR recipient_nanoid = :recipient)
     AND (:states IS NULL OR state IN (SELECT value FROM json_each(:states)))
     AND (:after_created IS NULL OR created_at < :after_created OR (created_at = :after_created AND nanoid < :after_id))
     ORDER BY created_at DESC, nanoid DESC LIMIT :limit`
  )
})

type Statements = ReturnType<typeof statements>

const read = (store: Statements, id: string): Invoice | undefined => {
  const row = store.find.get(id)
  return row === undefined ? undefined : invoiceOf(row)
}

const create = (store: Statements, invoice: Invoice) => {
  const { changes } = store.insert.run({
    nanoid: invoice.nanoid,
    team_nanoid: invoice.team_nanoid,
    recipient_nanoid: invoice.recipient_nanoid,
    invoice_number: invoice.invoice_number,
    state: invoice.state,
    revision: invoice.revision,
    created_at: invoice.created_at,
    record: JSON.stringify(invoice)
  })
  return changes === 1 ? Effect.void : Effect.fail(new InvoiceNumberTaken({ invoice_number: invoice.invoice_number }))
}

/** The transition, in one transaction: the invoice changed, or why not. */
const transition = (
  store: Statements,
  transaction: SqliteDatabase["Service"]["transaction"],
  [id, from, to, change]: [InvoiceId, InvoiceState, InvoiceState, InvoiceChange]
): Effect.Effect<Invoice, InvoiceNotFound | StaleState> => {
  const outcome = transaction(() => {
    const stored = read(store, id)
    if (stored === undefined) return "missing" as const
    if (stored.state !== from || stored.revision !== change.revision) return "stale" as const
    const changed = changedInvoice(stored, to, change)
    const { changes } = store.update.run({
      nanoid: id,
      state: to,
      revision: changed.revision,
      record: JSON.stringify(changed),
      from,
      expected: change.revision
    })
    return changes === 1 ? changed : ("stale" as const)
  })
  if (outcome === "missing") return Effect.fail(new InvoiceNotFound({ nanoid: id }))
  if (outcome === "stale") return Effect.fail(new StaleState({ resource: "invoice", id, expected: from }))
  return Effect.succeed(outcome)
}

const list = (store: Statements, query: InvoiceListQuery) =>
  store.list
    .all({
      team: query.team,
      recipient: query.recipient ?? null,
      states: query.states.length === 0 ? null : JSON.stringify(query.states),
      after_created: query.after?.created_at ?? null,
      after_id: query.after?.nanoid ?? null,
      limit: query.limit
    })
    .map(invoiceOf)

/** The SQLite invoices. */
export const layer = Layer.effect(
  InvoiceRepository,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const store = statements(connection)
    return InvoiceRepository.of({
      create: (invoice) => Effect.suspend(() => create(store, invoice)),
      findById: (id) =>
        Effect.suspend(() => {
          const invoice = read(store, id)
          return invoice === undefined ? Effect.fail(new InvoiceNotFound({ nanoid: id })) : Effect.succeed(invoice)
        }),
      findByIds: (ids) =>
        Effect.sync(() => (ids.length === 0 ? [] : store.findMany.all(JSON.stringify(ids)).map(invoiceOf))),
      list: (query) => Effect.sync(() => list(store, query)),
      // A move outside the machine's table is a defect, refused before the store is asked (decision 0091).
      transition: (...args) =>
        Effect.andThen(Effect.orDie(InvoiceMachine.move(args[1], args[2])), () => transition(store, transaction, args))
    })
  })
)
