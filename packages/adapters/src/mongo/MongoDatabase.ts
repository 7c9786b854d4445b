/**
 * The MongoDB connection as a scoped service: one `MongoClient`, closed when the scope closes.
 */
import { Config, Context, Effect, Layer } from "effect"
import { type Db, MongoClient } from "mongodb"

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
      const uri = yield* Config.String("MONGODB_URI")
      const database = yield* Config.option(Config.String("MONGODB_DATABASE"))
      return MongoDatabase.layer({ uri, database: database._tag === "Some" ? database.value : undefined })
    })
  )
}
