/**
 * The MongoDB connection as a scoped service: one `MongoClient`, closed when the scope closes.
 */
import { Config, Context, Effect, Layer, Redacted, Schema } from "effect"
import { type Db, MongoClient } from "mongodb"
import { guardWrites, serializeTransactions } from "./MongoTransaction.ts"

/** How long the driver waits for the database (ms). */
export interface MongoTimeouts {
  /** For a server to talk to: a dead database fails operations after this. */
  readonly serverSelectionMillis?: number
  /** For a new connection. */
  readonly connectMillis?: number
  /** For an answer on an open connection: a hung database fails operations after this. */
  readonly socketMillis?: number
}

/** A dead database answers within 3 s; no operation of ours legitimately takes 20 s. */
export const defaultMongoTimeouts = { serverSelectionMillis: 3_000, connectMillis: 3_000, socketMillis: 20_000 }

/** The database did not answer at start: said in one line, naming its hosts (never the URI's credentials). */
export class MongoUnreachable extends Schema.TaggedError<MongoUnreachable>()("MongoUnreachable", {
  message: Schema.String
}) {}

/** The hosts of a MongoDB URI, without its credentials, path or options. */
export const hostsOf = (uri: string): string => /^[a-z+]+:\/\/(?:[^@/]*@)?([^/?]*)/i.exec(uri)?.[1] ?? "?"

/** The database svc stores its state in. */
export class MongoDatabase extends Context.Service<MongoDatabase, { readonly db: Db; readonly client: MongoClient }>()(
  "@svc/adapters/mongo/MongoDatabase"
) {
  /**
   * Connects to `uri` and uses database `name` (else the one named in the URI, else `svc`). Every operation is bounded
   * (`timeouts`), so a dead or hung database fails a request within seconds, which the API answers 503.
   */
  static readonly layer = (options: {
    readonly uri: string
    readonly database?: string | undefined
    readonly timeouts?: MongoTimeouts | undefined
  }) =>
    Layer.effect(
      MongoDatabase,
      Effect.acquireRelease(
        Effect.tryPromise({
          try: async () => {
            const timeouts = { ...defaultMongoTimeouts, ...options.timeouts }
            const connect = async (monitoring: "auto" | "poll") => {
              const client = new MongoClient(options.uri, {
                maxPoolSize: 50,
                serverSelectionTimeoutMS: timeouts.serverSelectionMillis,
                connectTimeoutMS: timeouts.connectMillis,
                socketTimeoutMS: timeouts.socketMillis,
                serverMonitoringMode: monitoring
              })
              await client.connect()
              return client
            }
            const first = await connect("auto")
            const { version } = await first.db("admin").command({ buildInfo: 1 })
            if (!String(version).includes("jongodb")) return first
            // jongodb (embedded mode, tests) breaks the driver's streaming heartbeat under load ("Server ended
            // moreToCome unexpectedly"), which clears the pool and fails every operation in flight: it is polled
            // instead. It also breaks on overlapping transactions, and loses writes that overlap a commit: the queue
            // and the lock (MongoDB needs none of the three).
            await first.close()
            const client = await connect("poll")
            serializeTransactions(client)
            return client
          },
          catch: (error) =>
            new MongoUnreachable({
              message: `MongoDB at ${hostsOf(options.uri)} did not answer within ${options.timeouts?.serverSelectionMillis ?? defaultMongoTimeouts.serverSelectionMillis} ms (MONGODB_URI, MONGODB_SERVER_SELECTION_TIMEOUT_MS): ${error instanceof Error ? error.message : String(error)}`
            })
        }),
        (client) => Effect.promise(() => client.close())
      ).pipe(
        Effect.map((client) =>
          MongoDatabase.of({
            client,
            db: guardWrites(client, client.db(options.database ?? (client.options.dbName || "svc")))
          })
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
