/**
 * The v1 id map in SQLite (`v1_ids`). Allocation is one `BEGIN IMMEDIATE` transaction (look up, else insert one past
 * the largest number of the kind), so processes sharing the file agree on one number per nanoid and never give a
 * number twice; `record` stores a whole batch in one transaction, which is what makes imports fast.
 */
import { type NumberedV1IdKind, V1IdConflict, V1IdMap, V1IdMapping } from "@svc/domain/migration"
import { Effect, Layer, Option } from "effect"
import * as RowDecoder from "./RowDecoder.ts"
import { SqliteDatabase } from "./SqliteDatabase.ts"

/** The text of column `name` of a `v1_ids` row (`undefined` for no row). */
const textOf = (row: Record<string, unknown> | undefined, name: "v1" | "nanoid"): string | undefined => {
  if (row === undefined) return undefined
  const value = row[name]
  if (typeof value !== "string") {
    throw new RowDecoder.StoredRowInvalid(`A row of v1_ids (${String(row.id ?? "?")}) has a ${name} that is not text`)
  }
  return value
}

const mappingOf = RowDecoder.rows("v1_ids", V1IdMapping)

/** A page of mappings, and where the next one starts when this one is full. */
const pageOf = (rows: ReadonlyArray<Record<string, unknown>>, limit: number) => {
  const mappings = rows.map((row) => mappingOf(row, String(row.id)))
  const last = rows.at(-1)
  return { mappings, next: rows.length === limit && last !== undefined ? String(last.id) : undefined }
}

const numberOf = (kind: V1IdMapping["kind"], v1: string) =>
  kind !== "svcid" && /^[0-9]{1,15}$/.test(v1) ? Number(v1) : null

/** Thrown inside a transaction to roll the batch back, and turned into the typed failure outside it. */
class ConflictFound {
  readonly conflict: V1IdConflict
  constructor(conflict: V1IdConflict) {
    this.conflict = conflict
  }
}

/** The SQLite v1 id map. */
export const layer = Layer.effect(
  V1IdMap,
  Effect.gen(function* () {
    const { connection, transaction } = yield* SqliteDatabase
    const byNanoid = connection.prepare("SELECT v1 FROM v1_ids WHERE kind = ? AND nanoid = ?")
    const byV1 = connection.prepare("SELECT nanoid FROM v1_ids WHERE kind = ? AND v1 = ?")
    const insertNext = connection.prepare(
      `INSERT INTO v1_ids (kind, v1, v1_number, nanoid)
       SELECT ?1, CAST(n AS TEXT), n, ?2 FROM (SELECT COALESCE(MAX(v1_number), 0) + 1 AS n FROM v1_ids WHERE kind = ?1)
       RETURNING v1`
    )
    const insert = connection.prepare(
      "INSERT INTO v1_ids (kind, v1, v1_number, nanoid) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"
    )
    // Many ids in one statement: the list goes in as one JSON array.
    const manyByNanoid = connection.prepare(
      "SELECT nanoid, v1 FROM v1_ids WHERE kind = ? AND nanoid IN (SELECT value FROM json_each(?))"
    )
    const manyByV1 = connection.prepare(
      "SELECT v1, nanoid FROM v1_ids WHERE kind = ? AND v1 IN (SELECT value FROM json_each(?))"
    )
    const v1sOf = (kind: string, nanoids: ReadonlyArray<string>) =>
      new Map(
        manyByNanoid
          .all(kind, JSON.stringify(nanoids))
          .map((row) => [textOf(row, "nanoid") ?? "", textOf(row, "v1") ?? ""])
      )
    const page = connection.prepare("SELECT id, kind, v1, nanoid FROM v1_ids WHERE id > ? ORDER BY id LIMIT ?")

    const storedFor = (mapping: V1IdMapping): V1IdMapping | undefined => {
      const nanoid = textOf(byV1.get(mapping.kind, mapping.v1), "nanoid")
      if (nanoid !== undefined && nanoid !== mapping.nanoid) return { ...mapping, nanoid }
      const v1 = textOf(byNanoid.get(mapping.kind, mapping.nanoid), "v1")
      if (v1 !== undefined && v1 !== mapping.v1) return { ...mapping, v1 }
      return undefined
    }

    const allocateAll = (kind: NumberedV1IdKind, nanoids: ReadonlyArray<string>): Array<string> => {
      // Seen before is the common case: plain reads, and the write lock only for those seen for the first time.
      const stored = nanoids.length === 1 ? undefined : v1sOf(kind, nanoids)
      const known = nanoids.map((nanoid) =>
        stored === undefined ? textOf(byNanoid.get(kind, nanoid), "v1") : stored.get(nanoid)
      )
      const all = known.filter((v1) => v1 !== undefined)
      if (all.length === nanoids.length) return all
      return transaction(() =>
        nanoids.map((nanoid, i) => {
          const v1 = known[i] ?? textOf(byNanoid.get(kind, nanoid), "v1")
          return v1 ?? textOf(insertNext.get(kind, nanoid), "v1") ?? ""
        })
      )
    }

    return V1IdMap.of({
      allocate: (kind: NumberedV1IdKind, nanoid: string) => Effect.sync(() => allocateAll(kind, [nanoid])[0] as string),
      allocateMany: (kind, nanoids) => Effect.sync(() => allocateAll(kind, nanoids)),
      nanoidsOf: (kind, v1s) =>
        Effect.sync(
          () =>
            new Map(
              manyByV1
                .all(kind, JSON.stringify(v1s))
                .map((row) => [textOf(row, "v1") ?? "", textOf(row, "nanoid") ?? ""])
            )
        ),
      v1IdsOf: (kind, nanoids) => Effect.sync(() => v1sOf(kind, nanoids)),
      nanoidOf: (kind, v1) => Effect.sync(() => Option.fromNullishOr(textOf(byV1.get(kind, v1), "nanoid"))),
      v1Of: (kind, nanoid) => Effect.sync(() => Option.fromNullishOr(textOf(byNanoid.get(kind, nanoid), "v1"))),
      record: (mappings) =>
        Effect.suspend(() => {
          try {
            transaction(() => {
              for (const mapping of mappings) {
                const { changes } = insert.run(
                  mapping.kind,
                  mapping.v1,
                  numberOf(mapping.kind, mapping.v1),
                  mapping.nanoid
                )
                const stored = changes > 0 ? undefined : storedFor(mapping)
                if (stored !== undefined) throw new ConflictFound(new V1IdConflict({ mapping, stored }))
              }
            })
            return Effect.void
          } catch (error) {
            return error instanceof ConflictFound ? Effect.fail(error.conflict) : Effect.die(error)
          }
        }),
      page: (cursor, limit) =>
        Effect.sync(() => pageOf(page.all(cursor === undefined ? 0 : Number(cursor), limit), limit))
    })
  })
)
