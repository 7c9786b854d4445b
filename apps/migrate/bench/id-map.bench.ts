/**
 * Benchmark: the v1 id map on SQLite (the embedded default). `ids import` of 1,000,000 mappings from a CSV file
 * (ids/s, and the importing process's peak memory beside the same process importing an empty file), then id translation: lookups of v1
 * ids and of nanoids through the `V1IdMap` port, and whole `translate` lines.
 *
 * Run: `node apps/migrate/bench/id-map.bench.ts` (a temporary data directory; appends to bench/RESULTS.md).
 * Goals (issue 13): >= 100,000 ids/s; peak memory within 50 MB of the empty run.
 */
import { execFile, execFileSync } from "node:child_process"
import { appendFileSync, createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { Migrations, SqliteDatabase, SqliteV1IdMap } from "@svc/adapters/sqlite"
import { V1IdMap } from "@svc/domain/migration"
import { mapResolver } from "@svc/v1"
import { Effect, Layer } from "effect"
import { importIds } from "../src/IdFile.ts"
import { translateLine } from "../src/Translate.ts"

/** `BENCH_SMOKE=1`: the same paths on 20,000 ids, written nowhere. */
const smoke = process.env.BENCH_SMOKE === "1"
const total = Number(process.env.BENCH_IDS ?? (smoke ? 20_000 : 1_000_000))
const lookups = Number(process.env.BENCH_LOOKUPS ?? (smoke ? 10_000 : 500_000))
const dir = process.argv[2]?.startsWith("--") ? "" : mkdtempSync(join(tmpdir(), "svc-migrate-bench-"))
const mb = (bytes: number) => bytes / 1024 / 1024
const rate = (x: number) => Math.round(x).toLocaleString("en")

const nanoid = (prefix: string, n: number) => `${prefix}-${String(n).padStart(12, "0")}`
const address = (n: number) => `0x${n.toString(16).padStart(40, "0")}`

/** Writes the import file, streamed: one team per 100 users, and every user's svcid. */
const writeFile = (path: string, count: number) =>
  new Promise<void>((done) => {
    const out = createWriteStream(path)
    out.write("kind,v1_id,nanoid\n")
    let n = 0
    const pump = () => {
      while (n < count) {
        const kind = n % 3
        const i = Math.floor(n / 3) + 1
        const line =
          kind === 0
            ? `user,${i},${nanoid("us", i)}\n`
            : kind === 1
              ? `svcid,${address(i)},${nanoid("us", i)}\n`
              : `team,${i},${nanoid("te", i)}\n`
        n++
        if (!out.write(line)) return void out.once("drain", pump)
      }
      out.end(done)
    }
    pump()
  })

/** Imports `file` into `database` in a child process of its own; answers its seconds and peak RSS (bytes). */
const importInChild = (file: string, database: string) =>
  new Promise<{ seconds: number; peak: number; mappings: number }>((done, fail) => {
    execFile(process.execPath, [import.meta.filename, "--import", file, database], (error, stdout) =>
      error === null ? done(JSON.parse(stdout)) : fail(error)
    )
  })

/** The baseline (child): the same rows straight into the same table with node:sqlite, no file, no parsing. */
const rawInsert = (database: string, count: number) => {
  const started = performance.now()
  const db = new DatabaseSync(database)
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
  const schema = Migrations.migrations.find((m) => m.version === 4)?.sql ?? ""
  db.exec(schema)
  const insert = db.prepare(
    "INSERT INTO v1_ids (kind, v1, v1_number, nanoid) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING"
  )
  for (let n = 0; n < count; n += 5000) {
    db.exec("BEGIN IMMEDIATE")
    for (let k = n; k < Math.min(count, n + 5000); k++) {
      const kind = k % 3
      const i = Math.floor(k / 3) + 1
      if (kind === 0) insert.run("user", String(i), i, nanoid("us", i))
      else if (kind === 1) insert.run("svcid", address(i), null, nanoid("us", i))
      else insert.run("team", String(i), i, nanoid("te", i))
    }
    db.exec("COMMIT")
  }
  db.close()
  const seconds = (performance.now() - started) / 1000
  process.stdout.write(JSON.stringify({ seconds, mappings: count, peak: process.resourceUsage().maxRSS * 1024 }))
}

const rawInChild = (database: string) =>
  new Promise<{ seconds: number; peak: number; mappings: number }>((done, fail) => {
    execFile(process.execPath, [import.meta.filename, "--raw", database, String(total)], (error, stdout) =>
      error === null ? done(JSON.parse(stdout)) : fail(error)
    )
  })

/** The child: one import, then its time and the process's peak resident set. */
const importOnly = async (file: string, database: string) => {
  const started = performance.now()
  const { mappings } = await Effect.runPromise(
    importIds(createReadStream(file)).pipe(
      Effect.provide(SqliteV1IdMap.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: database })))),
      Effect.orDie
    )
  )
  const seconds = (performance.now() - started) / 1000
  process.stdout.write(JSON.stringify({ seconds, mappings, peak: process.resourceUsage().maxRSS * 1024 }))
}

const main = async () => {
  const empty = join(dir, "empty.csv")
  const full = join(dir, "ids.csv")
  await writeFile(empty, 0)
  await writeFile(full, total)
  const emptyRun = await importInChild(empty, join(dir, "empty", "svc.db"))
  const fullRun = await importInChild(full, join(dir, "full", "svc.db"))
  mkdirSync(join(dir, "raw"))
  const rawRun = await rawInChild(join(dir, "raw", "svc.db"))
  if (fullRun.mappings !== total) throw new Error(`imported ${fullRun.mappings} of ${total}`)
  const importRate = total / fullRun.seconds

  // Id translation: lookups through the port, both directions, on the 1M map.
  const translation = await Effect.runPromise(
    Effect.gen(function* () {
      const ids = yield* V1IdMap
      const users = Math.floor(total / 3)
      // Baseline: the same lookups as prepared statements straight on node:sqlite.
      const raw = new DatabaseSync(join(dir, "full", "svc.db"), { readOnly: true })
      const byV1 = raw.prepare("SELECT nanoid FROM v1_ids WHERE kind = ? AND v1 = ?")
      const byNanoid = raw.prepare("SELECT v1 FROM v1_ids WHERE kind = ? AND nanoid = ?")
      const rawStarted = performance.now()
      let rawFound = 0
      for (let n = 0; n < lookups; n++) {
        const i = ((n * 7919) % users) + 1
        if (byV1.get("user", String(i)) !== undefined) rawFound++
        if (byNanoid.get("svcid", nanoid("us", i)) !== undefined) rawFound++
      }
      const rawSeconds = (performance.now() - rawStarted) / 1000
      raw.close()
      let found = 0
      const started = performance.now()
      for (let n = 0; n < lookups; n++) {
        const i = ((n * 7919) % users) + 1
        if ((yield* ids.nanoidOf("user", String(i)))._tag === "Some") found++
        if ((yield* ids.v1Of("svcid", nanoid("us", i)))._tag === "Some") found++
      }
      const lookupSeconds = (performance.now() - started) / 1000
      // A page of 100 at once, as the proxy maps a team's users.
      const pageStarted = performance.now()
      for (let n = 0; n < lookups; n += 100) {
        const page = Array.from({ length: 100 }, (_, k) => ((((n + k) * 7919) % users) + 1) as number)
        found += (yield* ids.nanoidsOf("user", page.map(String))).size
        found += (yield* ids.v1IdsOf(
          "svcid",
          page.map((i) => nanoid("us", i))
        )).size
      }
      const pageSeconds = (performance.now() - pageStarted) / 1000
      const resolver = mapResolver(ids)
      const lines = smoke ? 2_000 : 50_000
      const lineStarted = performance.now()
      for (let n = 0; n < lines; n++) {
        const i = ((n * 104_729) % users) + 1
        yield* translateLine(
          resolver,
          JSON.stringify({ method: "GET", path: `/v1/teams/${i}/talent/${address(i)}` }),
          n
        )
      }
      const lineSeconds = (performance.now() - lineStarted) / 1000
      return {
        found: found + rawFound,
        rawRate: (2 * lookups) / rawSeconds,
        lookupRate: (2 * lookups) / lookupSeconds,
        pageRate: (2 * lookups) / pageSeconds,
        lineRate: lines / lineSeconds
      }
    }).pipe(
      Effect.provide(
        SqliteV1IdMap.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: join(dir, "full", "svc.db") })))
      ),
      Effect.orDie
    )
  )
  if (translation.found !== 6 * lookups) throw new Error(`lookups missed: ${translation.found} of ${6 * lookups}`)
  const rawImportRate = total / rawRun.seconds

  const commit = (() => {
    try {
      return execFileSync("git", ["rev-parse", "--short", "HEAD"]).toString().trim()
    } catch {
      return "unknown"
    }
  })()
  const delta = mb(fullRun.peak - emptyRun.peak)
  const section = [
    "",
    `## migrate: v1 id map on SQLite, ${total.toLocaleString("en")} mappings (${new Date().toISOString().slice(0, 10)}, ${commit})`,
    "",
    `Machine: ${cpus()[0]?.model ?? "cpu"} x${cpus().length}, Node ${process.version}. One SQLite file (WAL), batches of 5,000 per transaction; each import in a process of its own.`,
    "",
    "| measure | figure | baseline in the same run | ratio | goal |",
    "|---|---|---|---|---|",
    `| \`ids import\` of a ${mb(statSync(full).size).toFixed(0)} MB CSV | ${rate(importRate)} ids/s (${fullRun.seconds.toFixed(1)} s) | raw node:sqlite inserts, no file: ${rate(rawImportRate)}/s | ${(importRate / rawImportRate).toFixed(2)} | >= 100,000 ids/s |`,
    `| peak RSS of the importing process, empty file / all mappings | ${mb(emptyRun.peak).toFixed(0)} MB / ${mb(fullRun.peak).toFixed(0)} MB (+${delta.toFixed(0)} MB) | | | within 50 MB |`,
    `| id translation, one id per call (v1 -> nanoid, nanoid -> svcid) | ${rate(translation.lookupRate)} ids/s | raw prepared statements: ${rate(translation.rawRate)}/s | ${(translation.lookupRate / translation.rawRate).toFixed(2)} | >= 100,000 ids/s |`,
    `| id translation, 100 ids per call (as the proxy maps a team) | ${rate(translation.pageRate)} ids/s | | ${(translation.pageRate / translation.rawRate).toFixed(2)} | >= 100,000 ids/s |`,
    `| \`translate\` lines (two ids each, JSON in and out) | ${rate(translation.lineRate)} lines/s | | | |`,
    "",
    `Load average at the start: ${loadavg()
      .map((l) => l.toFixed(1))
      .join(", ")} (other work shares this machine; the ratios are the figures to compare).`,
    "",
    "Command: `node apps/migrate/bench/id-map.bench.ts` (`BENCH_IDS`, `BENCH_LOOKUPS` to change the sizes).",
    ""
  ].join("\n")
  console.log(section)
  if (!smoke) appendFileSync(resolve(import.meta.dirname, "../../../bench/RESULTS.md"), section)
}

if (process.argv[2] === "--import") {
  await importOnly(process.argv[3] ?? "", process.argv[4] ?? "")
} else if (process.argv[2] === "--raw") {
  rawInsert(process.argv[3] ?? "", Number(process.argv[4]))
} else {
  try {
    await main()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
