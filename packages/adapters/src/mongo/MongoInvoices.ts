/**
 * Invoices in MongoDB (`invoices`, `_id` = nanoid), unique on (team, member, number). A transition is one conditional
 * update on the state and revision it names, in a transaction of its own or in the use case's unit of work (where its
 * events, or the payment that pays it, are written with it).
 */
import type { InvoiceId } from "@svc/domain/Ids"
import {
  changedInvoice,
  Invoice,
  type InvoiceChange,
  type InvoiceListQuery,
  InvoiceNotFound,
  InvoiceNumberTaken,
  InvoiceRepository,
  type InvoiceState
} from "@svc/domain/invoice"
import { StaleState } from "@svc/domain/StaleState"
import { Effect, Layer } from "effect"
import type { Collection, Document, MongoClient } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { recordDecoder } from "./MongoDocuments.ts"
import { isDuplicateKey } from "./MongoErrors.ts"
import { inTransaction, inUnitOr } from "./MongoTransaction.ts"

interface InvoiceDocument extends Invoice {
  _id: string
}

const invoiceOf = recordDecoder("invoices", Invoice)

const documentOf = (invoice: Invoice): InvoiceDocument => ({ _id: invoice.nanoid, ...invoice })

/**
 * Adds the invoice, or `InvoiceNumberTaken`. In a unit of work the number is looked for first: a duplicate key would
 * abort the unit's whole transaction, where the use case should decide.
 */
const create = (col: Collection<InvoiceDocument>, invoice: Invoice) => {
  const taken = new InvoiceNumberTaken({ invoice_number: invoice.invoice_number })
  const insertedOr = (write: () => Promise<boolean>) =>
    Effect.tryPromise({ try: write, catch: (error) => error }).pipe(
      Effect.catch((error) => (isDuplicateKey(error) ? Effect.succeed(false) : Effect.die(error))),
      Effect.flatMap((inserted) => (inserted ? Effect.void : Effect.fail(taken)))
    )
  const key = {
    team_nanoid: invoice.team_nanoid,
    recipient_nanoid: invoice.recipient_nanoid,
    invoice_number: invoice.invoice_number
  }
  return inUnitOr(
    (session) =>
      insertedOr(async () => {
        if ((await col.findOne(key, { session })) !== null) return false
        await col.insertOne(documentOf(invoice), { session })
        return true
      }),
    insertedOr(async () => {
      await col.insertOne(documentOf(invoice))
      return true
    })
  )
}

/** The transition's one transaction: the invoice changed, or why not. */
const transitionWrites = (
  client: MongoClient,
  col: Collection<InvoiceDocument>,
  [id, from, to, change]: [InvoiceId, InvoiceState, InvoiceState, InvoiceChange]
) =>
  inTransaction(client, async (session) => {
    const doc = await col.findOne({ _id: id }, { session })
    if (doc === null) return "missing" as const
    const stored = invoiceOf(doc)
    if (stored.state !== from || stored.revision !== change.revision) return "stale" as const
    const { _id, ...changed } = documentOf(changedInvoice(stored, to, change))
    const update: Document = { $set: changed }
    if (changed.hold === undefined) update.$unset = { hold: "" }
    const { modifiedCount } = await col.updateOne({ _id: id, state: from, revision: change.revision }, update, {
      session
    })
    return modifiedCount === 1 ? invoiceOf(changed) : ("stale" as const)
  })

const list = (col: Collection<InvoiceDocument>, query: InvoiceListQuery) => {
  const filter: Document = { team_nanoid: query.team }
  if (query.recipient !== undefined) filter.recipient_nanoid = query.recipient
  if (query.states.length > 0) filter.state = { $in: [...query.states] }
  if (query.after !== undefined) {
    filter.$or = [
      { created_at: { $lt: query.after.created_at } },
      { created_at: query.after.created_at, _id: { $lt: query.after.nanoid } }
    ]
  }
  return Effect.promise(() => col.find(filter).sort({ created_at: -1, _id: -1 }).limit(query.limit).toArray()).pipe(
    Effect.map((docs) => docs.map(invoiceOf))
  )
}

/** The MongoDB invoices; the unique number and the list's indexes are created at start. */
export const layer = Layer.effect(
  InvoiceRepository,
  Effect.gen(function* () {
    const { db, client } = yield* MongoDatabase
    const col = db.collection<InvoiceDocument>("invoices")
    yield* Effect.promise(() =>
      col.createIndex({ team_nanoid: 1, recipient_nanoid: 1, invoice_number: 1 }, { unique: true })
    )
    yield* Effect.promise(() => col.createIndex({ team_nanoid: 1, created_at: -1, _id: -1 }))
    yield* Effect.promise(() => col.createIndex({ team_nanoid: 1, recipient_nanoid: 1, created_at: -1, _id: -1 }))
    return InvoiceRepository.of({
      create: (invoice) => create(col, invoice),
      findById: (id) =>
        Effect.flatMap(
          Effect.promise(() => col.findOne({ _id: id })),
          (doc) => (doc === null ? Effect.fail(new InvoiceNotFound({ nanoid: id })) : Effect.succeed(invoiceOf(doc)))
        ),
      findByIds: (ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : Effect.map(
              Effect.promise(() => col.find({ _id: { $in: [...ids] } }).toArray()),
              (docs) => docs.map(invoiceOf)
            ),
      list: (query) => list(col, query),
      transition: (...args) =>
        Effect.gen(function* () {
          const outcome = yield* transitionWrites(client, col, args)
          const [id, from] = args
          if (outcome === "missing") return yield* new InvoiceNotFound({ nanoid: id })
          if (outcome === "stale") return yield* new StaleState({ resource: "invoice", id, expected: from })
          return outcome
        })
    })
  })
)
