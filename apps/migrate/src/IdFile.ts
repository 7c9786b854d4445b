/**
 * `ids import` and `ids export`: the id map as a file, one mapping per line, either CSV (`kind,v1_id,nanoid`, an
 * optional header) or JSON lines (`{"kind","v1_id","nanoid"}`; `v1` and `id` are read for `v1_id` too).
 *
 * Both stream: import reads line by line and stores batches of `batchSize` mappings, each in one transaction; export
 * pages through the map. Memory stays flat whatever the file's size.
 */
import type { Readable, Writable } from "node:stream"
import { normalizeV1Id, V1IdMap, type V1IdMapping, v1IdMappingIssue } from "@svc/domain/migration"
import { Effect, Schema } from "effect"

/** Mappings stored per transaction on import, and read per page on export. */
export const batchSize = 5_000

/** A line of an import file that is not a mapping, or one that contradicts the map. */
export class IdFileRejected extends Schema.TaggedError<IdFileRejected>()("IdFileRejected", {
  line: Schema.Number,
  reason: Schema.String
}) {
  override get message() {
    return `line ${this.line}: ${this.reason}`
  }
}

/** The two file formats. */
export type IdFileFormat = "csv" | "jsonl"

// biome-ignore lint/suspicious/noExplicitAny: a JSON line is checked field by field
type Json = any

/** A CSV field without its surrounding blanks and double quotes. */
const unquote = (field: string) => {
  const text = field.trim()
  return text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text
}

/** The mapping on one line, or the reason it is not one; `undefined` for a header or a blank line. */
export const parseIdLine = (text: string): V1IdMapping | string | undefined => {
  const line = text.trim()
  if (line === "") return undefined
  let kind: string
  let v1: string
  let nanoid: string
  if (line.startsWith("{")) {
    let parsed: Json
    try {
      parsed = JSON.parse(line)
    } catch {
      return "not valid JSON"
    }
    kind = String(parsed?.kind ?? "")
    v1 = String(parsed?.v1_id ?? parsed?.v1 ?? parsed?.id ?? "")
    nanoid = String(parsed?.nanoid ?? "")
  } else {
    const fields = line.split(",")
    if (fields.length !== 3) return "expected three comma-separated fields: kind,v1_id,nanoid"
    ;[kind, v1, nanoid] = fields.map(unquote) as [string, string, string]
    if (kind === "kind") return undefined
  }
  const mapping = { kind, v1: normalizeV1Id(kind === "svcid" ? "svcid" : "team", v1), nanoid }
  return v1IdMappingIssue(mapping) ?? (mapping as V1IdMapping)
}

const sameMapping = (a: V1IdMapping, b: V1IdMapping) => a.kind === b.kind && a.v1 === b.v1 && a.nanoid === b.nanoid

/**
 * Stores every mapping of `input` in batches; stops at the first line that is not a mapping or that contradicts the
 * map (batches before it are stored; the import can be run again). Answers how many mappings were read.
 */
export const importIds = (input: Readable) =>
  Effect.gen(function* () {
    const ids = yield* V1IdMap
    // Decoded as UTF-8 by the stream, so a character split between two chunks stays whole.
    input.setEncoding("utf8")
    let batch: Array<V1IdMapping> = []
    let lineNumbers: Array<number> = []
    let number = 0
    let mappings = 0
    const flush = Effect.suspend(() => {
      const stored = batch
      const numbers = lineNumbers
      batch = []
      lineNumbers = []
      return ids.record(stored).pipe(
        Effect.mapError(
          (conflict) =>
            new IdFileRejected({
              line: numbers[stored.findIndex((m) => sameMapping(m, conflict.mapping))] ?? 0,
              reason: conflict.message
            })
        )
      )
    })
    // Chunks, not lines, cross into the effect: splitting a chunk is synchronous, and a line-by-line async
    // iterator would cost more than storing the mapping.
    const chunks = (input as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]()
    let rest = ""
    for (let done = false; !done; ) {
      const next = yield* Effect.promise(() => chunks.next())
      done = next.done === true
      const text = done ? rest : rest + String(next.value)
      const lines = text.split(/\r?\n/)
      rest = done ? "" : (lines.pop() ?? "")
      for (const line of lines) {
        number++
        const parsed = parseIdLine(line)
        if (parsed === undefined) continue
        if (typeof parsed === "string") return yield* new IdFileRejected({ line: number, reason: parsed })
        batch.push(parsed)
        lineNumbers.push(number)
        mappings++
        if (batch.length >= batchSize) yield* flush
      }
    }
    if (batch.length > 0) yield* flush
    return { mappings }
  })

const write = (output: Writable, text: string) =>
  output.write(text)
    ? Effect.void
    : Effect.callback<void>((resume) => void output.once("drain", () => resume(Effect.void)))

/** Writes every mapping to `output` in `format` (CSV with a header); answers how many. */
export const exportIds = (output: Writable, format: IdFileFormat) =>
  Effect.gen(function* () {
    const ids = yield* V1IdMap
    if (format === "csv") yield* write(output, "kind,v1_id,nanoid\n")
    let cursor: string | undefined
    let count = 0
    do {
      const page = yield* ids.page(cursor, batchSize)
      const text = page.mappings
        .map((m) =>
          format === "csv"
            ? `${m.kind},${m.v1},${m.nanoid}\n`
            : `${JSON.stringify({ kind: m.kind, v1_id: m.v1, nanoid: m.nanoid })}\n`
        )
        .join("")
      if (text !== "") yield* write(output, text)
      count += page.mappings.length
      cursor = page.next
    } while (cursor !== undefined)
    return { mappings: count }
  })
