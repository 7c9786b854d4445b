/**
 * Issue 23's bounds on hand-written sources: no file over 350 lines (tests, benchmarks, test support, the adapters'
 * contract suites and generated code aside). A file that grows past the bound fails, named with its length: split it.
 * The bound on functions (80 lines) is Biome's `noExcessiveLinesPerFunction` in biome.json, with the files still over
 * it listed there.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "..")
const maxLines = 350

const skippedDirs = new Set(["node_modules", "build", "dist", "test", "bench", "generated"])
/** The adapters' contract suites: tests, run against each adapter. */
const contractSuites = "packages/adapters/src/contract"

const sources = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory())
      return skippedDirs.has(entry.name) || entry.name.startsWith(".") || relative(root, path) === contractSuites
        ? []
        : sources(path)
    return /\.(ts|tsx|mjs)$/.test(entry.name) && !/\.(test|bench|d)\.tsx?$/.test(entry.name)
      ? [relative(root, path)]
      : []
  })

const lineCount = (file: string) => readFileSync(join(root, file), "utf8").split("\n").length - 1

describe("source size", () => {
  it(`no hand-written source file is over ${maxLines} lines`, () => {
    const files = ["apps", "packages", "scripts"].flatMap((dir) => sources(join(root, dir)))
    const over = files
      .map((file) => ({ file, lines: lineCount(file) }))
      .filter(({ lines }) => lines > maxLines)
      .map(({ file, lines }) => `${file}: ${lines} lines`)
      .sort()
    expect(over).toEqual([])
  })
})
