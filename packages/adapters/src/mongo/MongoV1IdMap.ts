/**
 * The v1 id map in MongoDB (`v1_ids`, `_id` = `kind:v1`, unique on kind and nanoid). Allocation inserts one past the
 * largest number of the kind and lets the unique indexes decide races: a lost race on the nanoid reads the winner's
 * number, a lost race on the number tries the next. Only inserts and reads, so it holds across replicas without a
 * transaction.
 */
import { type NumberedV1IdKind, V1IdConflict, V1IdMap, V1IdMapping } from "@svc/domain/migration"
import { Effect, Layer, Option, Schema } from "effect"
import type { Collection } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { documentDecoder } from "./MongoDocuments.ts"
import { type MongoFailure, toPort, tryMongo } from "./MongoErrors.ts"

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

const v1Of = (col: V1Ids, kind: V1IdMapping["kind"], nanoid: string) =>
  tryMongo(() => col.findOne({ kind, nanoid })).pipe(
    Effect.map((doc) => (doc === null ? undefined : mappingOf(doc).v1))
  )

/** The v1 number of `nanoid`: the one it has, or the next free one, taken (a race for it takes the next). */
const allocate = (col: V1Ids, kind: NumberedV1IdKind, nanoid: string): Effect.Effect<string, MongoFailure> =>
  Effect.gen(function* () {
    for (;;) {
      const found = yield* v1Of(col, kind, nanoid)
      if (found !== undefined) return found
      const largest = yield* tryMongo(() =>
        col.findOne({ kind, v1Number: { $exists: true } }, { sort: { v1Number: -1 }, projection: { v1Number: 1 } })
      )
      const next = (largest === null ? 0 : (numberOf(largest).v1Number ?? 0)) + 1
      const taken = yield* tryMongo(() => col.insertOne(documentOf({ kind, v1: String(next), nanoid }))).pipe(
        Effect.as(true),
        Effect.catchTag("DuplicateKey", () => Effect.succeed(false))
      )
      if (taken) return String(next)
    }
  })

/** The stored mapping `mapping` contradicts, if any. */
const storedFor = (col: V1Ids, mapping: V1IdMapping) =>
  Effect.gen(function* () {
    const found = yield* tryMongo(() => col.findOne({ _id: keyOf(mapping.kind, mapping.v1) }))
    const byV1 = found === null ? undefined : mappingOf(found)
    if (byV1 !== undefined && byV1.nanoid !== mapping.nanoid) return { ...mapping, nanoid: byV1.nanoid }
    const v1 = yield* v1Of(col, mapping.kind, mapping.nanoid)
    if (v1 !== undefined && v1 !== mapping.v1) return { ...mapping, v1 }
    return undefined
  })

/** Stores the mappings; answers the first conflict with what is stored, if any. */
const record = (col: V1Ids, mappings: ReadonlyArray<V1IdMapping>) =>
  Effect.gen(function* () {
    if (mappings.length === 0) return undefined
    const all = yield* tryMongo(() => col.insertMany(mappings.map(documentOf), { ordered: false })).pipe(
      Effect.as(true),
      Effect.catchTag("DuplicateKey", () => Effect.succeed(false))
    )
    if (all) return undefined
    // Some were stored already (or raced): settle each one on its own, as it stands now.
    for (const mapping of mappings) {
      const inserted = yield* tryMongo(() => col.insertOne(documentOf(mapping))).pipe(
        Effect.as(true),
        Effect.catchTag("DuplicateKey", () => Effect.succeed(false))
      )
      if (inserted) continue
      const stored = yield* storedFor(col, mapping)
      if (stored !== undefined) return new V1IdConflict({ mapping, stored })
    }
    return undefined
  })

/** The v1 numbers of `nanoids`, in order: read at once, the missing ones allocated. */
const allocateMany = (col: V1Ids, kind: NumberedV1IdKind, nanoids: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const found = yield* tryMongo(() => col.find({ kind, nanoid: { $in: [...nanoids] } }).toArray())
    const known = new Map(found.map(mappingOf).map((m) => [m.nanoid, m.v1]))
    const v1s: Array<string> = []
    for (const nanoid of nanoids) v1s.push(known.get(nanoid) ?? (yield* allocate(col, kind, nanoid)))
    return v1s
  })

/** The MongoDB v1 id map. */
export const layer = Layer.effect(
  V1IdMap,
  Effect.gen(function* () {
    const { db } = yield* MongoDatabase
    const col = db.collection<V1IdDocument>("v1_ids")
    yield* toPort(
      tryMongo(() =>
        Promise.all([
          col.createIndex({ kind: 1, nanoid: 1 }, { unique: true }),
          col.createIndex({ kind: 1, v1Number: -1 })
        ])
      )
    )

    return V1IdMap.of({
      allocate: (kind, nanoid) => toPort(allocate(col, kind, nanoid)),
      allocateMany: (kind, nanoids) => toPort(allocateMany(col, kind, nanoids)),
      nanoidsOf: (kind, v1s) =>
        tryMongo(() => col.find({ _id: { $in: v1s.map((v1) => keyOf(kind, v1)) } }).toArray()).pipe(
          Effect.map((docs) => new Map(docs.map(mappingOf).map((m) => [m.v1, m.nanoid]))),
          toPort
        ),
      v1IdsOf: (kind, nanoids) =>
        tryMongo(() => col.find({ kind, nanoid: { $in: [...nanoids] } }).toArray()).pipe(
          Effect.map((docs) => new Map(docs.map(mappingOf).map((m) => [m.nanoid, m.v1]))),
          toPort
        ),
      nanoidOf: (kind, v1) =>
        tryMongo(() => col.findOne({ _id: keyOf(kind, v1) })).pipe(
          Effect.map((doc) => (doc === null ? Option.none() : Option.some(mappingOf(doc).nanoid))),
          toPort
        ),
      v1Of: (kind, nanoid) => v1Of(col, kind, nanoid).pipe(Effect.map(Option.fromNullishOr), toPort),
      record: (mappings) =>
        record(col, mappings).pipe(
          toPort,
          Effect.flatMap((conflict) => (conflict === undefined ? Effect.void : Effect.fail(conflict)))
        ),
      page: (cursor, limit) =>
        tryMongo(() =>
          col
            .find(cursor === undefined ? {} : { _id: { $gt: cursor } })
            .sort({ _id: 1 })
            .limit(limit)
            .toArray()
        ).pipe(
          Effect.map((docs) => ({
            mappings: docs.map(mappingOf),
            next: docs.length === limit ? docs.at(-1)?._id : undefined
          })),
          toPort
        )
    })
  })
)
