/**
 * The SQLite database as a scoped service: one `node:sqlite` connection, opened with the schema migrated to this
 * code's version, and closed when its scope closes.
 *
 * node:sqlite is synchronous: a statement, or a whole `transaction`, runs to its end before any other fiber of this
 * process runs, so it is atomic within the process. Between processes sharing the file, writers take SQLite's write
 * lock (`BEGIN IMMEDIATE`, or the statement's own) and wait up to `busyTimeoutMillis` for one another.
 */
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { DatabaseSync, type StatementSync } from "node:sqlite"
import type { Backlog } from "@svc/domain/event"
import { Context, Effect, Layer, Schema } from "effect"
import { type Migration, migrations } from "./Migrations.ts"

/**
 * How long a writer waits for another connection's write lock before failing (ms), unless told. node:sqlite waits
 * synchronously, holding the whole process, so it is short; the API answers the failure 503 (docs/decisions/0037).
 */
export const busyTimeoutMillis = 5_000

/** The database file could not be opened, created or written (its directory, permissions, or not a database). */
export class SqliteOpenFailed extends Schema.TaggedError<SqliteOpenFailed>()("SqliteOpenFailed", {
  path: Schema.String,
  message: Schema.String
}) {}

/** The database was written by a newer version of svc (its schema is newer than this code knows); left untouched. */
export class SqliteSchemaTooNew extends Schema.TaggedError<SqliteSchemaTooNew>()("SqliteSchemaTooNew", {
  path: Schema.String,
  found: Schema.Number,
  known: Schema.Number,
  message: Schema.String
}) {}

/** Why the database could not be opened. */
export type SqliteDatabaseError = SqliteOpenFailed | SqliteSchemaTooNew

/** The connection svc stores its state in. */
export class SqliteDatabase extends Context.Service<
  SqliteDatabase,
  {
    /** The file (or `:memory:`). */
    readonly filename: string
    readonly connection: DatabaseSync
    /**
     * Runs `work` between `BEGIN IMMEDIATE` and `COMMIT`, rolling back if it throws. `work` must be synchronous: no
     * other fiber runs until it returns. Called inside another transaction, `work` joins it.
     */
    readonly transaction: <A>(work: () => A) => A
  }
>()("@svc/adapters/sqlite/SqliteDatabase") {
  /**
   * Opens `filename` (creating it and its directory if missing; `":memory:"` for a private in-memory database), sets
   * WAL (files), `synchronous=NORMAL`, the busy timeout and foreign keys, and applies the pending migrations.
   */
  static readonly layer = (options: {
    readonly filename: string
    /** The schema to migrate to (tests); default every migration of `Migrations.ts`. */
    readonly migrations?: ReadonlyArray<Migration> | undefined
    /** Default `busyTimeoutMillis`. */
    readonly busyTimeoutMillis?: number | undefined
  }) =>
    Layer.effect(
      SqliteDatabase,
      Effect.acquireRelease(
        open(options.filename, options.migrations ?? migrations, options.busyTimeoutMillis ?? busyTimeoutMillis),
        (connection) =>
          Effect.sync(() => {
            if (connection.isOpen) connection.close()
          })
      ).pipe(
        Effect.map((connection) =>
          SqliteDatabase.of({
            filename: options.filename,
            connection,
            transaction: (work) => transactionOn(connection, work)
          })
        )
      )
    )
}

/** `BEGIN IMMEDIATE` ... `COMMIT` on `connection`, rolled back if `work` throws; joins a transaction under way. */
export const transactionOn = <A>(connection: DatabaseSync, work: () => A): A => {
  if (connection.isTransaction) return work()
  connection.exec("BEGIN IMMEDIATE")
  try {
    const result = work()
    connection.exec("COMMIT")
    return result
  } catch (error) {
    if (connection.isTransaction) connection.exec("ROLLBACK")
    throw error
  }
}

/** A `count(*) AS n, min(…) AS oldest` row as a `Backlog`. */
export const backlogOf = (row: Record<string, unknown> | undefined): Backlog => ({
  count: Number(row?.n ?? 0),
  oldest: row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest)
})

/** The schema version stored in the file. */
export const userVersionOf = (connection: DatabaseSync): number =>
  Number(connection.prepare("PRAGMA user_version").get()?.user_version ?? 0)

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

const open = (filename: string, known: ReadonlyArray<Migration>, busyMillis: number) =>
  Effect.suspend((): Effect.Effect<DatabaseSync, SqliteDatabaseError> => {
    const inMemory = filename === ":memory:"
    const failed = (error: unknown) =>
      new SqliteOpenFailed({
        path: filename,
        message: `Cannot open or write the database ${filename}: ${reasonOf(error)}`
      })
    let connection: DatabaseSync
    try {
      if (!inMemory) mkdirSync(dirname(filename), { recursive: true })
      connection = new DatabaseSync(filename, { timeout: busyMillis, enableForeignKeyConstraints: true })
    } catch (error) {
      return Effect.fail(failed(error))
    }
    const close = () => {
      if (connection.isOpen) connection.close()
    }
    try {
      // Read before anything writes: a newer database must stay exactly as it is (WAL mode changes the header).
      connection.prepare("SELECT count(*) FROM sqlite_schema").get()
      const found = userVersionOf(connection)
      const latest = known.reduce((max, migration) => Math.max(max, migration.version), 0)
      if (found > latest) {
        close()
        return Effect.fail(
          new SqliteSchemaTooNew({
            path: filename,
            found,
            known: latest,
            message: `The database ${filename} has schema version ${found}, newer than the ${latest} this version of svc knows: run a newer svc, or point it at another data directory`
          })
        )
      }
      if (!inMemory) connection.exec("PRAGMA journal_mode = WAL")
      connection.exec(`PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = ${busyMillis}`)
      migrate(connection, known)
      // Prove the file writable even when nothing was pending (the header's version, rewritten as it is).
      transactionOn(connection, () => connection.exec(`PRAGMA user_version = ${userVersionOf(connection)}`))
      return Effect.succeed(failingFastWhileLocked(connection, busyMillis))
    } catch (error) {
      close()
      return Effect.fail(failed(error))
    }
  })

/** How long statements fail at once, rather than wait, after one waited the whole busy timeout in vain (ms). */
const lockedCooldownMillis = 5_000

const isBusy = (error: unknown) =>
  typeof error === "object" && error !== null && [5, 6].includes(((error as { errcode?: number }).errcode ?? 0) & 0xff)

/**
 * The connection, with one rule added: once a statement has waited the whole busy timeout for a lock another
 * process holds, the following statements for `lockedCooldownMillis` do not wait (busy timeout 0: they run at once when
 * the lock is free, and fail at once while it is held). node:sqlite waits synchronously, holding the whole process, so
 * without this every fiber (requests, workers) would wait the full timeout in turn and one request could wait minutes.
 */
const failingFastWhileLocked = (connection: DatabaseSync, busyMillis: number): DatabaseSync => {
  let waitingAgainAt = 0
  const guarded = <A>(work: () => A): A => {
    if (waitingAgainAt !== 0 && Date.now() >= waitingAgainAt) {
      waitingAgainAt = 0
      connection.exec(`PRAGMA busy_timeout = ${busyMillis}`)
    }
    try {
      return work()
    } catch (error) {
      if (waitingAgainAt === 0 && isBusy(error)) {
        waitingAgainAt = Date.now() + lockedCooldownMillis
        connection.exec("PRAGMA busy_timeout = 0")
      }
      throw error
    }
  }
  const bound = (target: object, property: string | symbol) => {
    const value = Reflect.get(target, property, target)
    return typeof value === "function" ? value.bind(target) : value
  }
  const statementMethods = new Set<string | symbol>(["run", "get", "all", "iterate"])
  const statement = (prepared: StatementSync) =>
    new Proxy(prepared, {
      get: (target, property) =>
        statementMethods.has(property)
          ? (...args: Array<unknown>) =>
              guarded(() =>
                Reflect.apply(Reflect.get(target, property, target) as (...a: Array<unknown>) => unknown, target, args)
              )
          : bound(target, property)
    })
  return new Proxy(connection, {
    get: (target, property) => {
      if (property === "prepare") return (sql: string) => statement(guarded(() => target.prepare(sql)))
      if (property === "exec") return (sql: string) => guarded(() => target.exec(sql))
      return bound(target, property)
    }
  })
}

/**
 * Applies each migration newer than the file's version, in order, each in its own transaction with the version it
 * reaches; the version is read again under the write lock, so processes opening one file together migrate it once.
 */
const migrate = (connection: DatabaseSync, known: ReadonlyArray<Migration>) => {
  for (const migration of [...known].sort((a, b) => a.version - b.version)) {
    if (userVersionOf(connection) >= migration.version) continue
    transactionOn(connection, () => {
      if (userVersionOf(connection) >= migration.version) return
      connection.exec(migration.sql)
      connection.exec(`PRAGMA user_version = ${migration.version}`)
    })
  }
}
