import { PassThrough, Readable } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import { SqliteDatabase, SqliteV1IdMap } from "@svc/adapters/sqlite"
import { V1IdMap } from "@svc/domain/migration"
import { Effect, Layer, Option } from "effect"
import { exportIds, importIds, parseIdLine } from "./IdFile.ts"

const idMap = () => SqliteV1IdMap.layer.pipe(Layer.provide(SqliteDatabase.layer({ filename: ":memory:" })), Layer.orDie)

const collect = (format: "csv" | "jsonl") =>
  Effect.gen(function* () {
    const output = new PassThrough()
    const chunks: Array<string> = []
    output.on("data", (chunk: Buffer) => chunks.push(chunk.toString()))
    const result = yield* exportIds(output, format)
    return { ...result, text: chunks.join("") }
  })

describe("id files", () => {
  it("reads CSV and JSON lines, normalises v1 ids, and says why a line is not a mapping", () => {
    assert.deepStrictEqual(parseIdLine("team,0042,te-AAAAAAAAAAAA"), {
      kind: "team",
      v1: "42",
      nanoid: "te-AAAAAAAAAAAA"
    })
    assert.deepStrictEqual(parseIdLine(`{"kind":"svcid","v1_id":"0x${"AB".repeat(20)}","nanoid":"co-x1"}`), {
      kind: "svcid",
      v1: `0x${"ab".repeat(20)}`,
      nanoid: "co-x1"
    })
    assert.deepStrictEqual(parseIdLine('{"kind":"user","id":7,"nanoid":"us-AAAAAAAAAAAA"}'), {
      kind: "user",
      v1: "7",
      nanoid: "us-AAAAAAAAAAAA"
    })
    assert.isUndefined(parseIdLine("kind,v1_id,nanoid"))
    assert.isUndefined(parseIdLine("   "))
    assert.match(String(parseIdLine("team,42")), /three comma-separated/)
    assert.match(String(parseIdLine("team,42,us-AAAAAAAAAAAA")), /not a nanoid a team/)
    assert.match(String(parseIdLine("group,1,te-AAAAAAAAAAAA")), /Unknown kind/)
    assert.match(String(parseIdLine("{nope")), /not valid JSON/)
  })

  it.effect("imports in batches, again without harm, and exports what it imported in both formats", () =>
    Effect.gen(function* () {
      const lines = ["kind,v1_id,nanoid"]
      for (let n = 1; n <= 25_000; n++) lines.push(`user,${n},us-${String(n).padStart(12, "0")}`)
      lines.push(`{"kind":"team","v1_id":"9","nanoid":"te-AAAAAAAAAAAA"}`)
      const file = `${lines.join("\n")}\n`
      assert.deepStrictEqual(yield* importIds(Readable.from([file])), { mappings: 25_001 })
      assert.deepStrictEqual(yield* importIds(Readable.from([file])), { mappings: 25_001 })
      const ids = yield* V1IdMap
      assert.deepStrictEqual(yield* ids.nanoidOf("user", "24999"), Option.some("us-000000024999"))
      const csv = yield* collect("csv")
      assert.strictEqual(csv.mappings, 25_001)
      assert.deepStrictEqual(
        csv.text.trim().split("\n").sort(),
        lines.slice(0, -1).concat("team,9,te-AAAAAAAAAAAA").sort()
      )
      const jsonl = yield* collect("jsonl")
      assert.deepStrictEqual(JSON.parse(jsonl.text.trim().split("\n").at(-1) ?? ""), {
        kind: "team",
        v1_id: "9",
        nanoid: "te-AAAAAAAAAAAA"
      })
      // The first number allocated after an import is past every imported one.
      assert.strictEqual(yield* ids.allocate("user", "us-NEWNEWNEWNEW"), "25001")
    }).pipe(Effect.provide(idMap()))
  )

  it.effect("stops at a malformed or contradicting line and names it", () =>
    Effect.gen(function* () {
      const bad = yield* Effect.flip(importIds(Readable.from(["team,1,te-AAAAAAAAAAAA\n\nteam,x,te-BBBBBBBBBBBB\n"])))
      assert.deepStrictEqual([bad.line, bad.message], [3, 'line 3: A team v1 id must be a number, got "x"'])
      yield* importIds(Readable.from(["team,1,te-AAAAAAAAAAAA\n"]))
      const conflict = yield* Effect.flip(
        importIds(Readable.from(["team,2,te-CCCCCCCCCCCC\nteam,1,te-BBBBBBBBBBBB\n"]))
      )
      assert.strictEqual(conflict.line, 2)
      assert.match(conflict.message, /contradicts the stored team 1 -> te-AAAAAAAAAAAA/)
    }).pipe(Effect.provide(idMap()))
  )
})
