/**
 * What decoding stored users at the storage edge costs (docs/decisions/0077): 100 user records (the page
 * `GET /v2/teams/{id}/users` reads) through `JSON.parse` alone, through `JSON.parse` and the domain's `User` schema,
 * and through the memoised record decoder of `RowDecoder.ts`, cold (a fresh memo each round) and warm.
 *
 * Run: `node packages/adapters/bench/row-decoder.bench.ts`. Prints a table; writes nothing.
 */
import { UserId } from "@svc/domain/Ids"
import { newUser, User } from "@svc/domain/user"
import { Schema } from "effect"
import { records } from "../src/sqlite/RowDecoder.ts"

const rounds = Number(process.env.BENCH_ROUNDS ?? 2_000)

const texts = Array.from({ length: 100 }, (_, i) =>
  JSON.stringify(
    newUser({
      nanoid: Schema.decodeUnknownSync(UserId)(`us-${String(i).padStart(12, "0")}`),
      wallet: `0x${(i + 1).toString(16).padStart(40, "0")}`,
      email: `member${i}@example.com`,
      first_name: `First${i}`,
      last_name: `Last${i}`,
      created_at: "2026-01-01T00:00:00.000Z"
    })
  )
)

/** Microseconds per page of 100 records: the median of `rounds` rounds after a warm-up. */
const measure = (page: () => unknown): number => {
  for (let i = 0; i < 200; i++) page()
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
const base = results["JSON.parse"]
console.log(`| 100 user records (${rounds} rounds, median) | µs per page | vs JSON.parse |`)
console.log("| --- | ---: | ---: |")
for (const [name, micros] of Object.entries(results)) {
  console.log(`| ${name} | ${micros.toFixed(1)} | ${(micros / base).toFixed(2)}x |`)
}
