/**
 * Decoding at the storage edge (docs/decisions/0077): what a row holds is decoded with the domain's own schema
 * before any port answers it, so a stored value is what its type says or a loud defect, never a cast.
 *
 * Records are JSON text. A decoder of records is memoised by that text: the same text decodes to the same value, so
 * a hit skips both `JSON.parse` and the schema. Values are deep-frozen when they enter the memo, so no caller can
 * change a value another caller holds. The memo is bounded: when full it is cleared and fills again.
 */
import { Schema } from "effect"

/** A stored row that does not match its schema: a defect (a bug or a damaged database), never an answer. */
export class StoredRowInvalid extends Error {
  override readonly name = "StoredRowInvalid"
}

/** How many decoded records one decoder keeps, unless told: a few pages of the records read again and again. */
export const defaultMemoSize = 4096

/** The memo of records mostly read once (events, deliveries, chain transactions): small, to bound the memory kept. */
export const smallMemoSize = 256

const deepFreeze = <A>(value: A): A => {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value)
    if (Array.isArray(value)) {
      for (const item of value) deepFreeze(item)
    } else {
      for (const key in value) deepFreeze(value[key])
    }
  }
  return value
}

/** What names a row in a failure: its key when the caller knows it, else an id field of the parsed record. */
const keyOf = (parsed: unknown, key: string | undefined): string => {
  if (key !== undefined) return key
  if (typeof parsed === "object" && parsed !== null) {
    for (const field of ["nanoid", "id", "salt", "hash", "name"]) {
      const value: unknown = Reflect.get(parsed, field)
      if (typeof value === "string") return value
    }
  }
  return "(unknown key)"
}

/** Why, on one line (a schema's message puts the path on a line of its own). */
const reasonOf = (cause: unknown) => (cause instanceof Error ? cause.message : String(cause)).replace(/\s*\n\s*/gu, " ")

const invalid = (table: string, key: string, cause: unknown) =>
  new StoredRowInvalid(`A row of ${table} (${key}) does not match its schema: ${reasonOf(cause)}`, { cause })

/** Decodes the text of a record of `table`; `key` names the row in a failure (default: the record's id field). */
export type RecordDecoder<A> = (text: unknown, key?: string) => A

/**
 * The decoder of `table`'s JSON records with `schema`, memoised by the text (at most `size` records kept). Fails
 * with `StoredRowInvalid` (thrown: a defect in the effect that reads) when the text is not JSON or not the schema's.
 */
export const records = <S extends Schema.Decoder<unknown>>(
  table: string,
  schema: S,
  size = defaultMemoSize
): RecordDecoder<S["Type"]> => {
  const decode = Schema.decodeUnknownSync(schema)
  const memo = new Map<string, S["Type"]>()
  return (text, key) => {
    if (typeof text !== "string") throw invalid(table, key ?? "(unknown key)", new Error("the record is not text"))
    const known = memo.get(text)
    if (known !== undefined) return known
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (cause) {
      throw invalid(table, key ?? "(unknown key)", cause)
    }
    let value: S["Type"]
    try {
      value = deepFreeze(decode(parsed))
    } catch (cause) {
      throw invalid(table, keyOf(parsed, key), cause)
    }
    if (memo.size >= size) memo.clear()
    memo.set(text, value)
    return value
  }
}

/**
 * The decoder of whole rows (columns as SQLite returns them) of `table` with `schema`, not memoised: for rows whose
 * values are columns, read off the hot paths. `key` names the row in a failure.
 */
export const rows = <S extends Schema.Decoder<unknown>>(table: string, schema: S) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (row: unknown, key?: string): S["Type"] => {
    try {
      return decode(row)
    } catch (cause) {
      throw invalid(table, keyOf(row, key), cause)
    }
  }
}

/** The decoder of one JSON column of `table` (not memoised): `JSON.parse`, then `schema`. */
export const json = <S extends Schema.Decoder<unknown>>(table: string, schema: S) => {
  const decode = Schema.decodeUnknownSync(schema)
  return (text: unknown, key: string): S["Type"] => {
    if (typeof text !== "string") throw invalid(table, key, new Error("the column is not text"))
    try {
      return decode(JSON.parse(text))
    } catch (cause) {
      throw invalid(table, key, cause)
    }
  }
}
