import { randomUUID } from "node:crypto"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { inject } from "vitest"
import { MongoDatabase } from "./MongoDatabase.ts"
import { transactionsSerialized } from "./MongoTransaction.ts"

describe("MongoDatabase", () => {
  it.live("queues transactions on jongodb, which cannot overlap them, and only there", () =>
    Effect.gen(function* () {
      const { client } = yield* MongoDatabase
      const { version } = yield* Effect.promise(() => client.db("admin").command({ buildInfo: 1 }))
      assert.strictEqual(transactionsSerialized(client), String(version).includes("jongodb"))
    }).pipe(Effect.provide(MongoDatabase.layer({ uri: inject("mongoUri"), database: `db_${randomUUID()}` })))
  )
})
