/**
 * Reading stored documents back: every document is decoded at this edge with a schema (the domain's own, or one
 * beside its store for a shape the domain has none of), compiled once per store. Mongo's own fields (`_id`, the lease
 * fields) are stripped before a domain record is decoded. A document that does not decode is a defect: it fails
 * loudly, naming its collection and id, never reaching the domain half-formed.
 */
import { Schema } from "effect"
import type { Document } from "mongodb"

/** A stored document does not match its schema (a bug, a hand edit or a damaged database): a defect, never an answer. */
export class StoredDocumentInvalid extends Error {
  override readonly name = "StoredDocumentInvalid"
}

const fail = (collection: string, id: unknown, cause: unknown): never => {
  const reason = cause instanceof Error ? cause.message : String(cause)
  throw new StoredDocumentInvalid(
    `The MongoDB document ${collection}/${String(id)} does not match its schema: ${reason}`,
    { cause }
  )
}

/**
 * The decoder of documents of `collection` holding records of `schema`: `_id` and the lease fields (`lease_token`,
 * `lease_until`, a former `lease_holder`) are stripped, the rest decoded (fields the schema does not name are dropped).
 */
export const recordDecoder = <S extends Schema.ConstraintDecoder<unknown>>(collection: string, schema: S) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (doc: Document): S["Type"] => {
    const { _id, lease_holder, lease_token, lease_until, ...record } = doc
    try {
      return decode(record)
    } catch (error) {
      return fail(collection, _id, error)
    }
  }
}

/** The decoder of whole documents of `collection` with their stored shape `schema` (`_id` included, if it names it). */
export const documentDecoder = <S extends Schema.ConstraintDecoder<unknown>>(collection: string, schema: S) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (doc: Document): S["Type"] => {
    try {
      return decode(doc)
    } catch (error) {
      return fail(collection, doc._id, error)
    }
  }
}
