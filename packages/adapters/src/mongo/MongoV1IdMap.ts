/**
 * The v1 id map in MongoDB (`v1_ids`, `_id` = `kind:v1`, unique on kind and nanoid). Allocation inserts one past the
 * largest number of the kind and lets the unique indexes decide races: a lost race on the nanoid reads the winner's
 * number, a lost race on the number tries the next. Only inserts and reads, so it holds on jongodb and across replicas.
 */
import { type NumberedV1IdKind, V1IdConflict, V1IdMap, V1IdMapping } from "@svc/domain/migration"
import { Effect, Layer, Option, Schema } from "effect"
import type { Collection } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder } from "./MongoDocuments.ts"
import { isDuplicateKey } from "./MongoErrors.ts"

interface V1IdDocument {
  _id: string
  kind: V1IdMapping["kind"]
  v1: string
  nanoid: string
  v1Number?: number
}

const keyOf = (kind: V1IdMapping["kind"], v1: string) => `${kind}:${v1}`

const documentOf = (mapping: V1IdMapping): V1IdDocument => ({
  _id: keyOf(mapping.kind, mapping.v1),
  kind: mapping.kind,
  v1: mapping.v1,
  nanoid: mapping.nanoid,
  ...(mapping.kind !== "svcid" && /^[0-9]{1,15}$/.test(mapping.v1) ? { v1Number: Number(mapping.v1) } : {})
})

/** The collection of the map. */
type V1Ids = Collection<V1IdDocument>

const mappingOf = documentDecoder("v1_ids", V1IdMapping)

/** The largest number of a kind (`allocate` reads only it). */
const numberOf = documentDecoder("v1_ids", Schema.Struct({ v1Number: Schema.optional(Schema.Number) }))

const v1Of = async (col: V1Ids, kind: V1IdMapping["kind"], nanoid: string) => {
  const doc = await col.findOne({ kind, nanoid })
  return doc === null ? undefined : mappingOf(doc).v1
}

/** The v1 number of `nanoid`: the one it has, or the next free one, taken (a race for it takes the next). */
const allocate = async (col: V1Ids, kind: NumberedV1IdKind, nanoid: string): Promise<string> => {
  for (;;) {
    const found = await v1Of(col, kind, nanoid)
    if (found !== undefined) return found
    const largest = await col.findOne(
      { kind, v1Number: { $exists: true } },
      { sort: { v1Number: -1 }, projection: { v1Number: 1 } }
    )
    const next = (largest === null ? 0 : (numberOf(largest).v1Number ?? 0)) + 1
    try {
      await col.insertOne(documentOf({ kind, v1: String(next), nanoid }))
      return String(next)
    } catch (error) {
      if (!isDuplicateKey(error)) throw error
    }
  }
}

/** The stored mapping `mapping` contradicts, if any. */
const storedFor = async (col: V1Ids, mapping: V1IdMapping): Promise<V1IdMapping | undefined> => {
  const found = await col.findOne({ _id: keyOf(mapping.kind, mapping.v1) })
  const byV1 = found === null ? undefined : mappingOf(found)
  if (byV1 !== undefined && byV1.nanoid !== mapping.nanoid) return { ...mapping, nanoid: byV1.nanoid }
  const v1 = await v1Of(col, mapping.kind, mapping.nanoid)
  if (v1 !== undefined && v1 !== mapping.v1) return { ...mapping, v1 }
  return undefined
}

/** Stores the mappings; answers the first conflict with what is stored, if any. */
const record = async (col: V1Ids, mappings: ReadonlyArray<V1IdMapping>): Promise<V1IdConflict | undefined> => {
  if (mappings.length === 0) return undefined
  try {
    await col.insertMany(mappings.map(documentOf), { ordered: false })
    return undefined
  } catch (error) {
    if (!isDuplicateKey(error) && !String(error).includes("E11000")) throw error
  }
  // Some were stored already (or raced): settle each one on its own, as it stands now.
  for (const mapping of mappings) {
    try {
      await col.insertOne(documentOf(mapping))
    } catch (error) {
      if (!isDuplicateKey(error)) throw error
      const stored = await storedFor(col, mapping)
      if (stored !== undefined) return new V1IdConflict({ mapping, stored })
    }
  }
  return undefined
}

/** The v1 numbers of `nanoids`, in order: read at once, the missing ones allocated. */
const allocateMany = async (col: V1Ids, kind: NumberedV1IdKind, nanoids: ReadonlyArray<string>) => {
  const known = new Map(
    (await col.find({ kind, nanoid: { $in: [...nanoids] } }).toArray()).map(mappingOf).map((m) => [m.nanoid, m.v1])
  )
  const v1s: Array<string> = []
  for (const nanoid of nanoids) v1s.push(known.get(nanoid) ?? (await allocate(col, kind, nanoid)))
  return v1s
}

/** The MongoDB v1 id map. */
export const layer = Layer.effect(
  V1IdMap,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<V1IdDocument>("v1_ids")
    yield* Effect.promise(() =>
      Promise.all([
        col.createIndex({ kind: 1, nanoid: 1 }, { unique: true }),
        col.createIndex({ kind: 1, v1Number: -1 })
      ])
    )

    return V1IdMap.of({
      allocate: (kind, nanoid) => Effect.promise(() => allocate(col, kind, nanoid)),
      allocateMany: (kind, nanoids) => Effect.promise(() => allocateMany(col, kind, nanoids)),
      nanoidsOf: (kind, v1s) =>
        Effect.promise(() => col.find({ _id: { $in: v1s.map((v1) => keyOf(kind, v1)) } }).toArray()).pipe(
          Effect.map((docs) => new Map(docs.map(mappingOf).map((m) => [m.v1, m.nanoid])))
        ),
      v1IdsOf: (kind, nanoids) =>
        Effect.promise(() => col.find({ kind, nanoid: { $in: [...nanoids] } }).toArray()).pipe(
          Effect.map((docs) => new Map(docs.map(mappingOf).map((m) => [m.nanoid, m.v1])))
        ),
      nanoidOf: (kind, v1) =>
        Effect.promise(() => col.findOne({ _id: keyOf(kind, v1) })).pipe(
          Effect.map((doc) => (doc === null ? Option.none() : Option.some(mappingOf(doc).nanoid)))
        ),
      v1Of: (kind, nanoid) => Effect.promise(() => v1Of(col, kind, nanoid)).pipe(Effect.map(Option.fromNullishOr)),
      record: (mappings) =>
        Effect.promise(() => record(col, mappings)).pipe(
          Effect.flatMap((conflict) => (conflict === undefined ? Effect.void : Effect.fail(conflict)))
        ),
      page: (cursor, limit) =>
        Effect.promise(() =>
          col
            .find(cursor === undefined ? {} : { _id: { $gt: cursor } })
            .sort({ _id: 1 })
            .limit(limit)
            .toArray()
        ).pipe(
          Effect.map((docs) => ({
            mappings: docs.map(mappingOf),
            next: docs.length === limit ? docs.at(-1)?._id : undefined
          }))
        )
    })
  })
)
