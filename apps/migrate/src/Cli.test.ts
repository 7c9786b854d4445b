import { execFile, spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

const bin = resolve(import.meta.dirname, "bin.ts")
const migrate = (args: ReadonlyArray<string>, input?: string) =>
  Effect.callback<{ code: number; stdout: string; stderr: string }>((resume) => {
    const child = execFile(process.execPath, [bin, ...args], { timeout: 30_000 }, (error, stdout, stderr) =>
      resume(Effect.succeed({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr }))
    )
    child.stdin?.end(input ?? "")
  })

const tempDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-migrate-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

describe("migrate CLI", () => {
  it.live("ids import, ids export and translate share the data directory's id map, as real processes", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = join(dir, "ids.csv")
      writeFileSync(file, "kind,v1_id,nanoid\nteam,42,te-AAAAAAAAAAAA\nuser,7,us-AAAAAAAAAAAA\n")
      const imported = yield* migrate(["--data-dir", dir, "ids", "import", file])
      assert.strictEqual(imported.code, 0, imported.stderr)
      assert.match(imported.stderr, /imported 2 mappings/)
      const exported = yield* migrate(["--data-dir", dir, "ids", "export", "--format", "jsonl"])
      assert.deepStrictEqual(
        exported.stdout
          .trim()
          .split("\n")
          .map((line) => JSON.parse(line)),
        [
          { kind: "team", v1_id: "42", nanoid: "te-AAAAAAAAAAAA" },
          { kind: "user", v1_id: "7", nanoid: "us-AAAAAAAAAAAA" }
        ]
      )
      const translated = yield* migrate(
        ["--data-dir", dir, "translate"],
        `${JSON.stringify({ method: "DELETE", path: "/v1/teams/42/talent/7" })}\n${JSON.stringify({ method: "GET", path: "/v1/nothing" })}\n`
      )
      // A refused line is an error line and exit code 2 (issue 21); all translated is 0.
      assert.strictEqual(translated.code, 2, translated.stderr)
      assert.match(translated.stderr, /translated 1, refused 1/)
      const clean = yield* migrate(
        ["--data-dir", dir, "translate"],
        `${JSON.stringify({ method: "DELETE", path: "/v1/teams/42/talent/7" })}\n`
      )
      assert.strictEqual(clean.code, 0, clean.stderr)
      const [first, second] = translated.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line))
      assert.deepStrictEqual(first.v2, [{ method: "DELETE", path: "/v2/teams/te-AAAAAAAAAAAA/member/us-AAAAAAAAAAAA" }])
      assert.match(second.error, /no v2 equivalent/)
    }).pipe(Effect.scoped)
  )

  it.live("a bad import line is one clear message and exit code 1; --help documents each command", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const file = join(dir, "bad.csv")
      writeFileSync(file, "team,x,te-AAAAAAAAAAAA\n")
      const refused = yield* migrate(["--data-dir", dir, "ids", "import", file])
      assert.strictEqual(refused.code, 1)
      assert.strictEqual(refused.stderr.trim(), 'migrate: line 1: A team v1 id must be a number, got "x"')
      for (const command of [["translate"], ["ids", "import"], ["ids", "export"], ["proxy"]]) {
        const help = yield* migrate([...command, "--help"])
        assert.strictEqual(help.code, 0, help.stderr)
        assert.match(help.stdout, /USAGE/)
      }
    }).pipe(Effect.scoped)
  )

  it.live("proxy serves v1 from its own process: counts, Deprecation, and a clear error when v2 is not there", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir
      const child = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, [bin, "--data-dir", dir, "proxy", "--target", "http://127.0.0.1:9", "--port", "0"])
        ),
        (process) => Effect.sync(() => process.kill("SIGTERM"))
      )
      const url = yield* Effect.callback<string>((resume) => {
        let err = ""
        child.stderr.on("data", (chunk: Buffer) => {
          err += chunk.toString()
          const found = /v1 proxy on (http:\/\/\S+)/.exec(err)?.[1]
          if (found !== undefined) resume(Effect.succeed(found))
        })
      })
      const answer = yield* Effect.promise(() => fetch(`${url}/v1/teams`, { headers: { authorization: "Bearer x" } }))
      assert.strictEqual(answer.status, 502)
      assert.strictEqual(answer.headers.get("deprecation"), "true")
      assert.match(
        ((yield* Effect.promise(() => answer.json())) as { message: string }).message,
        /GET \/v1\/teams: the v2 API could not be reached/
      )
      const stats = yield* Effect.promise(() => fetch(`${url}/v1/_stats`).then((r) => r.json()))
      assert.deepStrictEqual((stats as { data: { routes: unknown } }).data.routes, { "GET /v1/teams": 1 })
    }).pipe(Effect.scoped)
  )
})
