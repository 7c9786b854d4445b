/**
 * The SQLite database itself: the schema migrated at open, data kept across opens, a newer schema refused and left
 * as it is, clear failures for places that cannot hold a database, and several connections (as several processes
 * would open it) sharing one file with exactly one winner of each claim.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { Worker } from "node:worker_threads"
import { assert, describe, it } from "@effect/vitest"
import { CompanyRepository } from "@svc/domain/company"
import { IssuedRequestStore, storedBytesOf } from "@svc/domain/eip712"
import type { DeliveryId } from "@svc/domain/Ids"
import { IdempotencyStore } from "@svc/domain/idempotency"
import { WebhookDeliveryStore } from "@svc/domain/webhook"
import { Context, Effect, Exit, Layer, Option } from "effect"
import { company, companyId, event, issued, teamId } from "../contract/Fixtures.ts"
import { migrations } from "./Migrations.ts"
import { SqliteDatabase, userVersionOf } from "./SqliteDatabase.ts"
import * as SqliteStorage from "./SqliteStorage.ts"

const latest = Math.max(...migrations.map((m) => m.version))

/** A fresh temporary directory, removed with the scope. */
const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-sqlite-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** The services of `layer`, built for the current scope. */
const build = <A, E>(layer: Layer.Layer<A, E>) => Layer.build(layer)

describe("SqliteDatabase", () => {
  it.live("a fresh file gets the whole schema, in WAL mode, with foreign keys on", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "data", "svc.db")
      const { connection } = Context.get(yield* build(SqliteDatabase.layer({ filename })), SqliteDatabase)
      assert.strictEqual(userVersionOf(connection), latest)
      const tables = connection
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        .all()
        .map((row) => row.name)
      assert.includeMembers(tables, ["companies", "issued_requests", "payments", "event_outbox", "idempotency_keys"])
      assert.strictEqual(connection.prepare("PRAGMA journal_mode").get()?.journal_mode, "wal")
      assert.strictEqual(connection.prepare("PRAGMA foreign_keys").get()?.foreign_keys, 1)
      assert.strictEqual(connection.prepare("PRAGMA synchronous").get()?.synchronous, 1)
    }).pipe(Effect.scoped)
  )

  it.live("reopening a file keeps its data and applies no migration twice", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "svc.db")
      yield* CompanyRepository.use((c) => c.insert(company(1))).pipe(Effect.provide(SqliteStorage.layer({ filename })))
      const found = yield* CompanyRepository.use((c) => c.findById(companyId(1))).pipe(
        Effect.provide(SqliteStorage.layer({ filename }))
      )
      assert.deepStrictEqual(Option.getOrThrow(found), company(1))
    }).pipe(Effect.scoped)
  )

  it.live(
    "migration 5 gives requests issued before it their expiry and size, so budgets count them and sweeps find them",
    () =>
      Effect.gen(function* () {
        const filename = join(yield* tempDir, "svc.db")
        const record = issued("77")
        yield* Effect.scoped(
          Effect.gen(function* () {
            const before = migrations.filter((m) => m.version < 5)
            const { connection } = Context.get(
              yield* build(SqliteDatabase.layer({ filename, migrations: before })),
              SqliteDatabase
            )
            connection
              .prepare("INSERT INTO issued_requests (salt, team_nanoid, record) VALUES (?, ?, ?)")
              .run(record.salt, record.team, JSON.stringify(record))
          })
        )
        const { connection } = Context.get(yield* build(SqliteDatabase.layer({ filename })), SqliteDatabase)
        const row = connection.prepare("SELECT expires_at, bytes FROM issued_requests WHERE salt = '77'").get()
        assert.deepStrictEqual(
          { expires_at: Number(row?.expires_at), bytes: Number(row?.bytes) },
          { expires_at: Number(record.bundle.typed_data.expires), bytes: storedBytesOf(record) }
        )
      }).pipe(Effect.scoped)
  )

  it.live("attempts logged before response bodies were kept read back with none, and the next one keeps its body", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "svc.db")
      const bodies = migrations.find((m) => m.sql.includes("response_body"))?.version ?? 0
      const delivery = "dl-000000000001"
      yield* Effect.scoped(
        Effect.gen(function* () {
          const before = migrations.filter((m) => m.version < bodies)
          const { connection } = Context.get(
            yield* build(SqliteDatabase.layer({ filename, migrations: before })),
            SqliteDatabase
          )
          connection
            .prepare(
              `INSERT INTO webhook_deliveries (nanoid, webhook_nanoid, team_nanoid, event_id, event, status, attempts,
                 next_attempt_at, created_at, updated_at) VALUES (?, 'wh-000000000001', ?, ?, ?, 'pending', 1, 0, 1, 1)`
            )
            .run(delivery, teamId(1), event(1).id, JSON.stringify(event(1)))
          connection
            .prepare(
              "INSERT INTO webhook_attempts (delivery_nanoid, number, at, status_code, duration_ms, error) VALUES (?, 1, 1, 500, 3, 'HTTP 500')"
            )
            .run(delivery)
        })
      )
      const logged = yield* Effect.gen(function* () {
        const store = yield* WebhookDeliveryStore
        const [claimed] = yield* store.claimDue({ now: 1, limit: 1, leaseMillis: 1_000 })
        const response_body = { text: "ok", truncated: false }
        yield* store.record(delivery as DeliveryId, claimed?.lease.token ?? (0 as never), {
          attempt: {
            delivery_nanoid: delivery as DeliveryId,
            number: 2,
            at: 2,
            status_code: 200,
            duration_ms: 4,
            response_body
          },
          status: "succeeded",
          at: 2
        })
        return yield* store.findById(delivery as DeliveryId)
      }).pipe(Effect.provide(SqliteStorage.layer({ filename })))
      assert.deepStrictEqual(
        logged?.attempt_log.map((a) => [a.status_code, a.response_body]),
        [
          [500, undefined],
          [200, { text: "ok", truncated: false }]
        ]
      )
    }).pipe(Effect.scoped)
  )

  it.live("pending migrations apply in order, each in its own transaction: a failing one changes nothing", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "svc.db")
      const first = { version: 1, sql: "CREATE TABLE a (x INTEGER) STRICT; INSERT INTO a VALUES (1);" }
      yield* Effect.scoped(build(SqliteDatabase.layer({ filename, migrations: [first] })))
      const broken = { version: 2, sql: "CREATE TABLE b (x INTEGER) STRICT; INSERT INTO missing VALUES (1);" }
      const failed = yield* Effect.flip(build(SqliteDatabase.layer({ filename, migrations: [first, broken] })))
      assert.strictEqual(failed._tag, "SqliteOpenFailed")
      assert.include(failed.message, filename)
      assert.include(failed.message, "missing")
      const raw = new DatabaseSync(filename)
      assert.strictEqual(userVersionOf(raw), 1)
      assert.isUndefined(raw.prepare("SELECT name FROM sqlite_schema WHERE name = 'b'").get())
      raw.close()
      const fixed = { version: 2, sql: "CREATE TABLE b (x INTEGER) STRICT;" }
      const third = { version: 3, sql: "INSERT INTO b SELECT x FROM a;" }
      const { connection } = Context.get(
        yield* build(SqliteDatabase.layer({ filename, migrations: [third, first, fixed] })),
        SqliteDatabase
      )
      assert.strictEqual(userVersionOf(connection), 3)
      assert.deepStrictEqual(
        connection
          .prepare("SELECT x FROM b")
          .all()
          .map((row) => row.x),
        [1]
      )
    }).pipe(Effect.scoped)
  )

  it.live("a database from a newer schema is refused with a typed error and left exactly as it was", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "svc.db")
      yield* Effect.scoped(build(SqliteDatabase.layer({ filename })))
      const raw = new DatabaseSync(filename)
      raw.exec(`PRAGMA user_version = ${latest + 1}`)
      raw.close()
      const before = readFileSync(filename)
      const refused = yield* Effect.flip(build(SqliteStorage.layer({ filename })))
      assert.strictEqual(refused._tag, "SqliteSchemaTooNew")
      if (refused._tag !== "SqliteSchemaTooNew") return
      assert.deepStrictEqual([refused.path, refused.found, refused.known], [filename, latest + 1, latest])
      assert.include(refused.message, filename)
      assert.isTrue(readFileSync(filename).equals(before))
    }).pipe(Effect.scoped)
  )

  it.live("a place that cannot hold a database fails with an error naming the path", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = join(dir, "a-file")
      writeFileSync(file, "not a directory")
      const notADatabase = join(dir, "garbage.db")
      writeFileSync(notADatabase, "x".repeat(4096))
      mkdirSync(join(dir, "a-directory"))
      for (const filename of [join(file, "svc.db"), join(dir, "a-directory"), notADatabase]) {
        const failed = yield* Effect.flip(build(SqliteStorage.layer({ filename })))
        assert.strictEqual(failed._tag, "SqliteOpenFailed", filename)
        assert.strictEqual(failed.path, filename)
        assert.include(failed.message, filename)
      }
      assert.strictEqual(readFileSync(notADatabase, "utf8"), "x".repeat(4096))
    }).pipe(Effect.scoped)
  )

  it.live("two connections on one file, as two processes: each claim has exactly one winner across them", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "svc.db")
      const a = yield* build(SqliteStorage.layer({ filename }))
      const b = yield* build(SqliteStorage.layer({ filename }))
      const stores = [Context.get(a, IssuedRequestStore), Context.get(b, IssuedRequestStore)]
      for (let round = 0; round < 10; round++) {
        const salt = String(round + 1)
        yield* (stores[round % 2] as IssuedRequestStore["Service"]).issue(issued(salt))
        const claims = yield* Effect.all(
          Array.from({ length: 10 }, (_, i) =>
            Effect.exit(
              (stores[i % 2] as IssuedRequestStore["Service"]).claim(salt, {
                now: Date.now(),
                until: Date.now() + 20_000,
                signature: "0x"
              })
            )
          ),
          { concurrency: "unbounded" }
        )
        assert.strictEqual(claims.filter(Exit.isSuccess).length, 1, `round ${round}`)
      }
      const keys = [Context.get(a, IdempotencyStore), Context.get(b, IdempotencyStore)]
      const claims = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) =>
          (keys[i % 2] as IdempotencyStore["Service"]).claim({ scope: "us-1", key: "k" }, "h", Date.now())
        ),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(claims.filter((c) => c._tag === "Claimed").length, 1)
    }).pipe(Effect.scoped)
  )

  it.live("worker threads claiming the same salts on one file at once: every salt is won exactly once", () =>
    Effect.gen(function* () {
      const filename = join(yield* tempDir, "svc.db")
      const salts = Array.from({ length: 60 }, (_, i) => String(i + 1))
      const store = Context.get(yield* build(SqliteStorage.layer({ filename })), IssuedRequestStore)
      for (const salt of salts) yield* store.issue(issued(salt))
      const race = (order: ReadonlyArray<string>) =>
        Effect.callback<ReadonlyArray<string>, Error>((resume) => {
          const worker = new Worker(new URL("./ClaimRace.worker.ts", import.meta.url), {
            workerData: { filename, salts: order }
          })
          worker.once("message", (won: ReadonlyArray<string>) => resume(Effect.succeed(won)))
          worker.once("error", (error) => resume(Effect.fail(error)))
          return Effect.promise(() => worker.terminate())
        })
      const won = yield* Effect.all([race(salts), race([...salts].reverse()), race(salts)], {
        concurrency: "unbounded"
      })
      assert.deepStrictEqual(
        won
          .flat()
          .map(Number)
          .sort((x, y) => x - y),
        salts.map(Number)
      )
    }).pipe(Effect.scoped)
  )
})
