/**
 * MongoDB's versioned migrations, on the test run's server: a fresh database gets every step once and records it;
 * a request issued before budgets is back-filled; a database a newer svc migrated is refused and left as it was.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { testMongoDatabase } from "../../test/TestMongoDatabase.ts"
import { issued, teamId } from "../contract/Fixtures.ts"
import { MongoDatabase } from "./MongoDatabase.ts"
import { type IssuedDocument, issuedCollection } from "./MongoIssuedRequestStore.ts"
import { migrate, migrations } from "./MongoMigrations.ts"

const fresh = () => testMongoDatabase("migrations")

describe("MongoDB migrations", () => {
  it.live("a fresh database gets every step once, recorded by version; running again changes nothing", () =>
    Effect.gen(function* () {
      const { db } = yield* MongoDatabase
      yield* migrate(db)
      yield* migrate(db)
      const recorded = yield* Effect.promise(() =>
        db.collection<{ _id: number; name: string }>("schema_migrations").find({}).toArray()
      )
      assert.deepStrictEqual(
        recorded.map((doc) => doc._id),
        migrations.map((step) => step.version)
      )
    }).pipe(Effect.provide(fresh()))
  )

  it.live("version 1 gives a request issued before budgets its team, expiry and size", () =>
    Effect.gen(function* () {
      const { db } = yield* MongoDatabase
      // A request as stored before budgets: the record alone, without its team, expiry and size beside it.
      const base = issued("7", teamId(5))
      const record = {
        ...base,
        bundle: { ...base.bundle, typed_data: { ...base.bundle.typed_data, expires: "1900000000" } }
      }
      const col = db.collection<IssuedDocument>(issuedCollection)
      yield* Effect.promise(() =>
        col.insertOne({ _id: "7", record, state: "issued", lease_until: 0 } as unknown as IssuedDocument)
      )
      yield* migrate(db)
      const doc = yield* Effect.promise(() => col.findOne({ _id: "7" }))
      assert.strictEqual(doc?.team, teamId(5))
      assert.strictEqual(doc?.expires, 1_900_000_000)
      assert.isAbove(doc?.bytes ?? 0, 0)
    }).pipe(Effect.provide(fresh()))
  )

  it.live("a database migrated by a newer svc is refused, and left as it was", () =>
    Effect.gen(function* () {
      const { db } = yield* MongoDatabase
      const applied = db.collection<{ _id: number; name: string }>("schema_migrations")
      yield* Effect.promise(() => applied.insertOne({ _id: 999, name: "from the future" }))
      const refused = yield* Effect.flip(migrate(db))
      assert.strictEqual(refused._tag, "MongoSchemaTooNew")
      assert.match(refused.message, /version 999/)
      assert.deepStrictEqual(
        (yield* Effect.promise(() => applied.find({}).toArray())).map((doc) => doc._id),
        [999]
      )
    }).pipe(Effect.provide(fresh()))
  )
})
