/**
 * The migration tool's command line (`npm run migrate -- <command>`): `translate`, `ids import`, `ids export` and
 * `proxy`. The id map lives where the server keeps its state (`--data-dir`/`SVC_DATA_DIR`, or `--mongodb-uri`/
 * `MONGODB_URI`).
 */
import { createReadStream, createWriteStream } from "node:fs"
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { exportIds, importIds } from "./IdFile.ts"
import { defaultDataDir, idMapLayer } from "./IdMapStore.ts"
import { serveProxy } from "./Proxy.ts"
import { translateStream } from "./Translate.ts"

const dataDir = Flag.String("data-dir").pipe(
  Flag.withDescription("The server's data directory, whose SQLite file holds the id map (env SVC_DATA_DIR)"),
  Flag.withDefault(process.env.SVC_DATA_DIR ?? defaultDataDir)
)
const mongoUri = Flag.String("mongodb-uri").pipe(
  Flag.withDescription("Keep the id map in this MongoDB instead, as the server does (env MONGODB_URI)"),
  Flag.withDefault(process.env.MONGODB_URI ?? "")
)
const mongoDatabase = Flag.String("mongodb-database").pipe(
  Flag.withDescription("The MongoDB database (env MONGODB_DATABASE; default the URI's, else svc)"),
  Flag.withDefault(process.env.MONGODB_DATABASE ?? "")
)

/** The root command; its flags choose the storage of the id map for every subcommand. */
export const migrate = Command.make("migrate").pipe(
  Command.withSharedFlags({ dataDir, mongoUri, mongoDatabase }),
  Command.withDescription("Move v1 integrations onto the svc v2 API: translate requests, map ids, proxy v1 to v2")
)

/** The id map layer the root's flags name. */
const store = Effect.map(migrate, (root) =>
  idMapLayer({
    dataDir: root.dataDir,
    mongoUri: root.mongoUri,
    mongoDatabase: root.mongoDatabase === "" ? undefined : root.mongoDatabase
  })
)

/** Runs `effect` with the id map of the root's flags. */
const withIdMap = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(store, (layer) => Effect.provide(effect, layer))

/** `translate`: v1 request lines in, v2 request lines out. */
export const translate = Command.make(
  "translate",
  {
    input: Flag.String("input").pipe(
      Flag.withAlias("i"),
      Flag.withDescription("Read the v1 request lines from this file (default standard input)"),
      Flag.optional
    )
  },
  Effect.fn("migrate.translate")(function* ({ input }) {
    const source = Option.isSome(input) ? createReadStream(input.value) : process.stdin
    const counts = yield* withIdMap(translateStream(source, process.stdout))
    yield* Console.error(`translated ${counts.translated}, refused ${counts.refused}`)
    // Exit code 2: every line was read, and some were refused (each with its error line); 1 stays "could not run".
    if (counts.refused > 0) process.exitCode = 2
  })
).pipe(
  Command.withDescription(
    "Read v1 requests as JSON lines {method, path, query?, body?} and write the v2 request(s) each becomes, ids mapped; an error line with the reason for anything untranslatable, and exit code 2 when there was any"
  )
)

const format = Flag.Literals("format", ["csv", "jsonl"] as const).pipe(
  Flag.withDescription("File format: csv (kind,v1_id,nanoid) or jsonl ({kind, v1_id, nanoid})"),
  Flag.withDefault("csv" as const)
)

/** `ids import FILE`. */
export const idsImport = Command.make(
  "import",
  { file: Argument.String("file").pipe(Argument.withDescription("A CSV or JSON lines file of mappings")) },
  Effect.fn("migrate.ids.import")(function* ({ file }) {
    const started = performance.now()
    const result = yield* withIdMap(importIds(createReadStream(file)))
    const seconds = (performance.now() - started) / 1000
    yield* Console.error(
      `imported ${result.mappings} mappings in ${seconds.toFixed(1)} s (${Math.round(result.mappings / seconds)}/s)`
    )
  })
).pipe(
  Command.withDescription(
    "Load v1 id mappings (kind team|user|svcid, v1 id, nanoid) from CSV or JSON lines, streamed in batches; mappings stored already are skipped, contradicting ones stop the import"
  )
)

/** `ids export`. */
export const idsExport = Command.make(
  "export",
  {
    format,
    output: Flag.String("output").pipe(
      Flag.withAlias("o"),
      Flag.withDescription("Write to this file (default standard output)"),
      Flag.optional
    )
  },
  Effect.fn("migrate.ids.export")(function* ({ format, output }) {
    const target = Option.isSome(output) ? createWriteStream(output.value) : process.stdout
    const result = yield* withIdMap(exportIds(target, format))
    if (Option.isSome(output)) yield* Effect.callback<void>((resume) => void target.end(() => resume(Effect.void)))
    yield* Console.error(`exported ${result.mappings} mappings`)
  })
).pipe(Command.withDescription("Write every id mapping as CSV (with a header) or JSON lines"))

/** `ids`: the id map as a file. */
export const ids = Command.make("ids").pipe(
  Command.withDescription("Import or export the map between v1 ids (numbers, svcid addresses) and nanoids"),
  Command.withSubcommands([idsImport, idsExport])
)

const date = (name: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(description),
    Flag.filter(
      (value) => !Number.isNaN(new Date(value).getTime()),
      (value) => `--${name}: "${value}" is not a date`
    ),
    Flag.optional
  )

/** `proxy --target URL --port N`. */
export const proxy = Command.make(
  "proxy",
  {
    target: Flag.String("target").pipe(Flag.withDescription("The v2 API's base URL, e.g. http://127.0.0.1:3000")),
    port: Flag.Int("port").pipe(Flag.withDescription("The port to serve v1 on (0: any free port)")),
    host: Flag.String("host").pipe(Flag.withDescription("The address to listen on"), Flag.withDefault("127.0.0.1")),
    sunset: date("sunset", "When v1 stops answering: sent as the Sunset header"),
    deprecatedSince: date("deprecated-since", "When v1 was deprecated: sent as Deprecation: @<unix> (default true)")
  },
  Effect.fn("migrate.proxy")(function* (flags) {
    // The id map stays open for as long as the proxy serves: both live in this one scope until the process stops.
    yield* withIdMap(
      Effect.gen(function* () {
        const running = yield* serveProxy({
          target: flags.target,
          port: flags.port,
          host: flags.host,
          sunset: Option.getOrUndefined(Option.map(flags.sunset, (d) => new Date(d))),
          deprecatedSince: Option.getOrUndefined(Option.map(flags.deprecatedSince, (d) => new Date(d)))
        })
        yield* Console.error(
          `v1 proxy on ${running.url} -> ${flags.target} (calls per route: GET ${running.url}/v1/_stats)`
        )
        return yield* Effect.never
      })
    )
  }, Effect.scoped)
).pipe(
  Command.withDescription(
    "Serve the v1 API (paths, verbs, shapes, {message} errors, SIWE) onto a v2 API, ids mapped both ways; Deprecation on every answer, per-route counts at GET /v1/_stats"
  )
)

/** Runs the tool with the given arguments (without the executable and script). */
export const run = migrate.pipe(Command.withSubcommands([translate, ids, proxy]), (command) =>
  Command.runWith(command, { version: "0.0.0" })
)
