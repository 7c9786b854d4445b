/**
 * The MongoDB connection as a scoped service: one `MongoClient` set for a replica set (decision 0096), closed when
 * the scope closes, and the transactions run on it.
 */
import { Config, Context, Effect, Layer, Redacted, Schema, type Scope } from "effect"
import { type Db, MongoClient, type MongoClientOptions } from "mongodb"
import { tryQuietly } from "./MongoErrors.ts"
import { type TransactionRunner, transactionOn } from "./MongoTransaction.ts"

/** How long the driver waits for the database (ms). */
export interface MongoTimeouts {
  /** For a server to talk to (a primary, for writes): a database without one fails operations after this. */
  readonly serverSelectionMillis?: number
  /** For a new connection. */
  readonly connectMillis?: number
  /** For an answer on an open connection: a hung database fails operations after this. */
  readonly socketMillis?: number
}

/**
 * An election takes about 12 s (10 s to notice a lost primary, then the vote): server selection outlasts it, so a
 * failover delays requests rather than failing them. A request still ends at its own bound (`REQUEST_TIMEOUT_MS`,
 * 30 s), answered 503. No operation of ours legitimately takes 20 s.
 */
export const defaultMongoTimeouts = { serverSelectionMillis: 30_000, connectMillis: 10_000, socketMillis: 20_000 }

/**
 * The client's settings, which win over the same options in `MONGODB_URI`: every read at majority from the primary,
 * every write acknowledged by a majority and the journal, writes and reads retried once across a failover.
 */
export const clientOptionsOf = (timeouts?: MongoTimeouts | undefined): MongoClientOptions => {
  const bounds = { ...defaultMongoTimeouts, ...timeouts }
  return {
    appName: "svc",
    maxPoolSize: 50,
    serverSelectionTimeoutMS: bounds.serverSelectionMillis,
    connectTimeoutMS: bounds.connectMillis,
    socketTimeoutMS: bounds.socketMillis,
    retryWrites: true,
    retryReads: true,
    readPreference: "primary",
    readConcernLevel: "majority",
    writeConcern: { w: "majority", journal: true }
  }
}

/** The database did not answer at start: said in one line, naming its hosts (never the URI's credentials). */
export class MongoUnreachable extends Schema.TaggedError<MongoUnreachable>()("MongoUnreachable", {
  message: Schema.String
}) {}

/** The hosts of a MongoDB URI, without its credentials, path or options. */
export const hostsOf = (uri: string): string => /^[a-z+]+:\/\/(?:[^@/]*@)?([^/?]*)/i.exec(uri)?.[1] ?? "?"

/** Where to connect: the URI, the database (else the URI's, else `svc`) and the driver's bounds. */
export interface MongoConnection {
  readonly uri: string
  readonly database?: string | undefined
  readonly timeouts?: MongoTimeouts | undefined
}

/**
 * A client connected to `connection.uri` with `options` (else `clientOptionsOf` its timeouts), closed with the scope;
 * `MongoUnreachable` when no server answered within the selection timeout.
 */
export const connect = (
  connection: MongoConnection,
  options: MongoClientOptions = clientOptionsOf(connection.timeouts)
): Effect.Effect<MongoClient, MongoUnreachable, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const client = new MongoClient(connection.uri, options)
        await client.connect()
        return client
      },
      catch: (error) =>
        new MongoUnreachable({
          message: `MongoDB at ${hostsOf(connection.uri)} did not answer within ${options.serverSelectionTimeoutMS} ms (MONGODB_URI, MONGODB_SERVER_SELECTION_TIMEOUT_MS): ${error instanceof Error ? error.message : String(error)}`
        })
    }),
    (client) => tryQuietly(() => client.close())
  )

/** The database of `connection` on `client`. */
export const databaseOf = (client: MongoClient, connection: MongoConnection): Db =>
  client.db(connection.database ?? (client.options.dbName || "svc"))

/** The database svc stores its state in, and the transactions on it. */
export class MongoDatabase extends Context.Service<
  MongoDatabase,
  {
    readonly db: Db
    readonly client: MongoClient
    /**
     * Runs `work` in one transaction (`MongoTransaction.ts`): majority reads and commit, again after a transient
     * error. `work` writes with the session it is given.
     */
    readonly transaction: TransactionRunner
  }
>()("@svc/adapters/mongo/MongoDatabase") {
  /**
   * Connects to a replica set (or a sharded cluster) at `uri` and uses database `database` (else the one named in the
   * URI, else `svc`). Every operation is bounded (`timeouts`): a database without a primary for longer than an
   * election fails a request, which the API answers 503.
   */
  static readonly layer = (connection: MongoConnection) =>
    Layer.effect(
      MongoDatabase,
      Effect.map(connect(connection), (client) =>
        MongoDatabase.of({ client, db: databaseOf(client, connection), transaction: transactionOn(client) })
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
