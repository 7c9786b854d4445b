/**
 * Invoices in MongoDB (`invoices`, `_id` = nanoid), unique on (team, member, number). A transition is one of the
 * machine's moves, one conditional write on the state and revision it names, in the use case's unit of work when it
 * runs in one (where its events, or the payment that pays it, are written with it).
 */
import type { InvoiceId } from "@svc/domain/Ids"
import {
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
import type { Collection, Document } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { recordDecoder } from "./MongoDocuments.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { unitOptions } from "./MongoTransaction.ts"

interface InvoiceDocument extends Invoice {
  _id: string
}

const invoiceOf = recordDecoder("invoices", Invoice)

const documentOf = (invoice: Invoice): InvoiceDocument => ({ _id: invoice.nanoid, ...invoice })

/**
 * Adds the invoice, or `InvoiceNumberTaken`. In a unit of work the number is looked for first: a duplicate key would
 * abort the unit's whole transaction, where the use case should decide.
 */
const create = (col: Collection<InvoiceDocument>, invoice: Invoice) =>
  Effect.gen(function* () {
    const options = yield* unitOptions
    const key = {
      team_nanoid: invoice.team_nanoid,
      recipient_nanoid: invoice.recipient_nanoid,
      invoice_number: invoice.invoice_number
    }
    const taken = new InvoiceNumberTaken({ invoice_number: invoice.invoice_number })
    if (options.session !== undefined && (yield* tryMongo(() => col.findOne(key, options))) !== null) {
      return yield* taken
    }
    return yield* tryMongo(() => col.insertOne(documentOf(invoice), options)).pipe(
      Effect.asVoid,
      Effect.catchTag("DuplicateKey", () => Effect.fail(taken))
    )
  })

/**
 * The invoice moved from `from` at `change.revision` to `to`: one conditional write (the patch holds whole values, so
 * nothing of the stored invoice is read first), or why not (read after the write that did not apply).
 */
const transition = (
  col: Collection<InvoiceDocument>,
  [id, from, to, change]: [InvoiceId, InvoiceState, InvoiceState, InvoiceChange]
) =>
  Effect.gen(function* () {
    const options = yield* unitOptions
    const { hold, ...fields } = change.patch
    const update: Document = {
      $set: { ...fields, ...(hold ? { hold } : {}), state: to, revision: change.revision + 1 }
    }
    if (hold === null) update.$unset = { hold: "" }
    const changed = yield* tryMongo(() =>
      col.findOneAndUpdate({ _id: id, state: from, revision: change.revision }, update, {
        ...options,
        returnDocument: "after"
      })
    )
    if (changed !== null) return invoiceOf(changed)
    const found = yield* tryMongo(() => col.findOne({ _id: id }, options))
    return yield* found === null
      ? Effect.fail(new InvoiceNotFound({ nanoid: id }))
      : Effect.fail(new StaleState({ resource: "invoice", id, expected: from }))
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
  return tryMongo(() => col.find(filter).sort({ created_at: -1, _id: -1 }).limit(query.limit).toArray()).pipe(
    Effect.map((docs) => docs.map(invoiceOf))
  )
}

const findById = (col: Collection<InvoiceDocument>, id: InvoiceId) =>
  Effect.gen(function* () {
    const options = yield* unitOptions
    const doc = yield* tryMongo(() => col.findOne({ _id: id }, options))
    return doc === null ? yield* new InvoiceNotFound({ nanoid: id }) : invoiceOf(doc)
  })

/** The MongoDB invoices; the unique number and the list's indexes are created at start. */
export const layer = Layer.effect(
  InvoiceRepository,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<InvoiceDocument>("invoices")
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          col.createIndex({ team_nanoid: 1, recipient_nanoid: 1, invoice_number: 1 }, { unique: true }),
          col.createIndex({ team_nanoid: 1, created_at: -1, _id: -1 }),
          col.createIndex({ team_nanoid: 1, recipient_nanoid: 1, created_at: -1, _id: -1 })
        ])
      )
    )
    return InvoiceRepository.of({
      create: (invoice) => toPort(create(col, invoice)),
      findById: (id) => toPort(findById(col, id)),
      findByIds: (ids) =>
        ids.length === 0
          ? Effect.succeed([])
          : toPort(tryMongo(() => col.find({ _id: { $in: [...ids] } }).toArray())).pipe(
              Effect.map((docs) => docs.map(invoiceOf))
            ),
      list: (query) => toPort(list(col, query)),
      // A move outside the machine's table is a defect, refused before the store is asked (decision 0091).
      transition: (...args) =>
        Effect.andThen(Effect.orDie(InvoiceMachine.move(args[1], args[2])), () => toPort(transition(col, args)))
    })
  })
)
