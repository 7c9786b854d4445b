/**
 * The v1 id map in SQLite (`v1_ids`). Allocation is one `BEGIN IMMEDIATE` transaction (look up, else insert one past
 * the largest number of the kind), so processes sharing the file agree on one number per nanoid and never give a
 * number twice; `record` stores a whole batch in one transaction, which is what makes imports fast.
 */
import { type NumberedV1IdKind, V1IdConflict, V1IdMap, type V1IdMapping } from "@svc/domain/migration"
import { Effect, Layer, Option } from "effect"
import { SqliteDatabase } from "./SqliteDatabase.ts"

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
      new Map(manyByNanoid.all(kind, JSON.stringify(nanoids)).map((row) => [row.nanoid as string, row.v1 as string]))
    const page = connection.prepare("SELECT id, kind, v1, nanoid FROM v1_ids WHERE id > ? ORDER BY id LIMIT ?")

    const storedFor = (mapping: V1IdMapping): V1IdMapping | undefined => {
      const nanoid = byV1.get(mapping.kind, mapping.v1)?.nanoid as string | undefined
      if (nanoid !== undefined && nanoid !== mapping.nanoid) return { ...mapping, nanoid }
      const v1 = byNanoid.get(mapping.kind, mapping.nanoid)?.v1 as string | undefined
      if (v1 !== undefined && v1 !== mapping.v1) return { ...mapping, v1 }
      return undefined
    }

    const allocateAll = (kind: NumberedV1IdKind, nanoids: ReadonlyArray<string>): Array<string> => {
      // Seen before is the common case: plain reads, and the write lock only for those seen for the first time.
      const stored = nanoids.length === 1 ? undefined : v1sOf(kind, nanoids)
      const known = nanoids.map((nanoid) =>
        stored === undefined ? (byNanoid.get(kind, nanoid)?.v1 as string | undefined) : stored.get(nanoid)
      )
      if (known.every((v1) => v1 !== undefined)) return known as Array<string>
      return transaction(() =>
        nanoids.map((nanoid, i) => {
          const v1 = known[i] ?? (byNanoid.get(kind, nanoid)?.v1 as string | undefined)
          return v1 ?? (insertNext.get(kind, nanoid)?.v1 as string)
        })
      )
    }

    return V1IdMap.of({
      allocate: (kind: NumberedV1IdKind, nanoid: string) => Effect.sync(() => allocateAll(kind, [nanoid])[0] as string),
      allocateMany: (kind, nanoids) => Effect.sync(() => allocateAll(kind, nanoids)),
      nanoidsOf: (kind, v1s) =>
        Effect.sync(
          () => new Map(manyByV1.all(kind, JSON.stringify(v1s)).map((row) => [row.v1 as string, row.nanoid as string]))
        ),
      v1IdsOf: (kind, nanoids) => Effect.sync(() => v1sOf(kind, nanoids)),
      nanoidOf: (kind, v1) => Effect.sync(() => Option.fromNullishOr(byV1.get(kind, v1)?.nanoid as string | undefined)),
      v1Of: (kind, nanoid) =>
        Effect.sync(() => Option.fromNullishOr(byNanoid.get(kind, nanoid)?.v1 as string | undefined)),
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
                if (changes > 0) continue
                const stored = storedFor(mapping)
                if (stored !== undefined) throw new ConflictFound(new V1IdConflict({ mapping, stored }))
              }
            })
            return Effect.void
          } catch (error) {
            if (error instanceof ConflictFound) return Effect.fail(error.conflict)
            throw error
          }
        }),
      page: (cursor, limit) =>
        Effect.sync(() => {
          const rows = page.all(cursor === undefined ? 0 : Number(cursor), limit)
          const mappings = rows.map((row) => ({
            kind: row.kind as V1IdMapping["kind"],
            v1: row.v1 as string,
            nanoid: row.nanoid as string
          }))
          const last = rows.at(-1)
          return { mappings, next: rows.length === limit && last !== undefined ? String(last.id) : undefined }
        })
    })
  })
)
