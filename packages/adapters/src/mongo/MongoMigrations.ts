/**
 * MongoDB's schema, versioned as SQLite's is (`sqlite/Migrations.ts`): each migration runs once, in order, and is
 * recorded in `schema_migrations` (`_id` its version). A database a newer svc has migrated further is refused, and
 * left untouched. Migrations must be safe to run twice: two processes starting together may both run one before
 * either records it. Indexes stay with the adapters that use them (creating one is idempotent); what changes
 * documents already stored is a migration.
 */
import { expiryOf, storedBytesOf } from "@svc/domain/eip712"
import { Effect, Layer, Schema } from "effect"
import type { Db } from "mongodb"
import { MongoDatabase } from "./MongoDatabase.ts"
import { toPort, tryMongo } from "./MongoErrors.ts"
import { type IssuedDocument, issuedCollection, issuedOf } from "./MongoIssuedRequestStore.ts"

/** One step of the schema. */
export interface MongoMigration {
  readonly version: number
  readonly name: string
  readonly up: (db: Db) => Promise<void>
}

/** The database was migrated by a newer version of svc than this one; left untouched. */
export class MongoSchemaTooNew extends Schema.TaggedError<MongoSchemaTooNew>()("MongoSchemaTooNew", {
  found: Schema.Number,
  known: Schema.Number,
  message: Schema.String
}) {}

/** The steps, oldest first. */
export const migrations: ReadonlyArray<MongoMigration> = [
  {
    version: 1,
    name: "issued requests issued before budgets get their team, expiry and size, so they are counted and swept",
    up: async (db) => {
      const col = db.collection<IssuedDocument>(issuedCollection)
      for (const doc of await col.find({ state: "issued", expires: { $exists: false } }).toArray()) {
        const record = issuedOf(doc)
        await col.updateOne(
          { _id: doc._id },
          { $set: { team: record.team, expires: expiryOf(record), bytes: storedBytesOf(record) } }
        )
      }
    }
  }
]

/** A record of one migration applied. */
interface MigrationDocument {
  readonly _id: number
  readonly name: string
  readonly applied_at: string
}

/** Applies the migrations `db` has not had, in order; refuses a database migrated past them. */
export const migrate = (db: Db, steps: ReadonlyArray<MongoMigration> = migrations) =>
  Effect.gen(function* () {
    const applied = db.collection<MigrationDocument>("schema_migrations")
    const done = new Set((yield* toPort(tryMongo(() => applied.find({}).toArray()))).map((doc) => doc._id))
    const known = Math.max(0, ...steps.map((step) => step.version))
    const found = Math.max(0, ...done)
    if (found > known) {
      return yield* new MongoSchemaTooNew({
        found,
        known,
        message: `the database was migrated to schema version ${found} by a newer svc; this one knows ${known}: run the newer version`
      })
    }
    for (const step of steps) {
      if (done.has(step.version)) continue
      yield* tryMongo(() => step.up(db)).pipe(
        Effect.andThen(
          tryMongo(() =>
            applied.insertOne({ _id: step.version, name: step.name, applied_at: new Date().toISOString() })
          )
        ),
        Effect.asVoid,
        Effect.catchTag("DuplicateKey", () => Effect.void),
        toPort
      )
      yield* Effect.logInfo(`MongoDB schema migrated to version ${step.version}: ${step.name}`)
    }
  })

/** Migrates the database the context holds, before the adapters start. */
export const layer = Layer.effectDiscard(Effect.flatMap(MongoDatabase, ({ db }) => migrate(db)))
