/**
 * The MongoDB connection as a scoped service: one `MongoClient`, closed when the scope closes.
 */
import { Config, Context, Effect, Layer, Redacted } from "effect"
import { type Db, MongoClient } from "mongodb"
import { serializeTransactions } from "./MongoTransaction.ts"

/** The database svc stores its state in. */
export class MongoDatabase extends Context.Service<MongoDatabase, { readonly db: Db; readonly client: MongoClient }>()(
  "@svc/adapters/mongo/MongoDatabase"
) {
  /** Connects to `uri` and uses database `name` (else the one named in the URI, else `svc`). */
  static readonly layer = (options: { readonly uri: string; readonly database?: string | undefined }) =>
    Layer.effect(
      MongoDatabase,
      Effect.acquireRelease(
        Effect.promise(async () => {
          const client = new MongoClient(options.uri, { maxPoolSize: 50, serverSelectionTimeoutMS: 10_000 })
          await client.connect()
          // jongodb (embedded mode, tests) breaks on overlapping transactions; MongoDB does not need the queue.
          const { version } = await client.db("admin").command({ buildInfo: 1 })
          if (String(version).includes("jongodb")) serializeTransactions(client)
          return client
        }),
        (client) => Effect.promise(() => client.close())
      ).pipe(
        Effect.map((client) =>
          MongoDatabase.of({ client, db: client.db(options.database ?? (client.options.dbName || "svc")) })
        )
      )
    )

  /** From `MONGODB_URI` (and `MONGODB_DATABASE`). */
  static readonly layerConfig = Layer.unwrap(
    Effect.gen(function* () {
      // Redacted: the URI usually carries credentials.
      const uri = yield* Config.Redacted("MONGODB_URI")
      const database = yield* Config.option(Config.String("MONGODB_DATABASE"))
      return MongoDatabase.layer({
        uri: Redacted.value(uri),
        database: database._tag === "Some" ? database.value : undefined
      })
    })
  )
}
