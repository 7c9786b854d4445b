/**
 * What decoding stored users at the storage edge costs (docs/decisions/0077): 100 user records (the page
 * `GET /v2/teams/{id}/users` reads) through `JSON.parse` alone, through `JSON.parse` and the domain's `User` schema,
 * and through the memoised record decoder of `RowDecoder.ts`, cold (a fresh memo each round) and warm; then the
 * whole read of the same 100 users from an in-memory database: the SQLite store's `findByIds` (decoding, warm) beside
 * the bare statement and `JSON.parse`.
 *
 * Run: `node packages/adapters/bench/row-decoder.bench.ts`. Prints a table; writes nothing. `BENCH_SMOKE=1` runs the
 * same paths with a few rounds.
 */
import { UserId } from "@svc/domain/Ids"
import { newUser, User, UserRepository } from "@svc/domain/user"
import { Context, Effect, Layer, Schema } from "effect"
import { records } from "../src/sqlite/RowDecoder.ts"
import { SqliteDatabase } from "../src/sqlite/SqliteDatabase.ts"
import * as SqliteRepositories from "../src/sqlite/SqliteRepositories.ts"

const smoke = process.env.BENCH_SMOKE === "1"
const rounds = Number(process.env.BENCH_ROUNDS ?? (smoke ? 20 : 2_000))

const users = Array.from({ length: 100 }, (_, i) =>
  newUser({
    nanoid: Schema.decodeUnknownSync(UserId)(`us-${String(i).padStart(12, "0")}`),
    wallet: `0x${(i + 1).toString(16).padStart(40, "0")}`,
    email: `member${i}@example.com`,
    first_name: `First${i}`,
    last_name: `Last${i}`,
    created_at: "2026-01-01T00:00:00.000Z"
  })
)
const texts = users.map((user) => JSON.stringify(user))

/** Microseconds per page of 100 records: the median of `rounds` rounds after a warm-up. */
const measure = (page: () => unknown): number => {
  for (let i = 0; i < (smoke ? 5 : 200); i++) page()
  const times: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    const started = performance.now()
    page()
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return (times[Math.floor(times.length / 2)] ?? 0) * 1000
}

const decodeUser = Schema.decodeUnknownSync(User)
const warm = records("users", User)
const results = {
  "JSON.parse": measure(() => texts.map((text) => JSON.parse(text))),
  "JSON.parse + User schema": measure(() => texts.map((text) => decodeUser(JSON.parse(text)))),
  "memoised decoder, cold": measure(() => {
    const cold = records("users", User)
    return texts.map((text) => cold(text))
  }),
  "memoised decoder, warm": measure(() => texts.map((text) => warm(text)))
}

// The whole read: one statement for the 100 ids, as `GET /v2/teams/{id}/users` makes it.
const read = Effect.gen(function* () {
  const context = yield* Layer.build(
    SqliteRepositories.users.pipe(Layer.provideMerge(SqliteDatabase.layer({ filename: ":memory:" })))
  )
  const { connection } = Context.get(context, SqliteDatabase)
  const repository = Context.get(context, UserRepository)
  for (const user of users) yield* repository.insert(user)
  const ids = users.map((user) => user.nanoid)
  const bare = connection.prepare("SELECT record FROM users WHERE nanoid IN (SELECT value FROM json_each(?))")
  const json = JSON.stringify(ids)
  return {
    "read: bare statement + JSON.parse": measure(() => bare.all(json).map((row) => JSON.parse(String(row.record)))),
    "read: SQLite store findByIds (decoded, warm)": measure(() => Effect.runSync(repository.findByIds(ids)))
  }
}).pipe(Effect.scoped, Effect.runSync)
Object.assign(results, read)
const base = results["JSON.parse"]
console.log(`## Decoding at the storage edge: 100 stored users (packages/adapters/bench/row-decoder.bench.ts)\n`)
console.log(`| 100 user records (${rounds} rounds, median) | µs per page | vs JSON.parse |`)
console.log("| --- | ---: | ---: |")
for (const [name, micros] of Object.entries(results)) {
  console.log(`| ${name} | ${micros.toFixed(1)} | ${(micros / base).toFixed(2)}x |`)
}
