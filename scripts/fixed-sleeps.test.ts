/**
 * No test sleeps a fixed time and then asserts (issue 36, item 5; decision 0095): that is slow when the machine is
 * fast and flaky when it is loaded. A test waits for what another fiber, process or server does with the shared
 * `eventually` (`@svc/adapters/test/Eventually`), and moves time it controls with `TestClock`. This check reads every
 * test file, test support file and storage contract suite, and refuses a sleep (`Effect.sleep`, `setTimeout`, a
 * `sleep(...)` helper) and a hand-written poll loop (`Schedule.spaced`, `Schedule.fixed`) outside `eventually`
 * itself. A line that needs one for another reason (a test server that answers slowly, a guard that fails a start
 * that never comes) says so on it or on the line before: `// not a wait: <why>`. Benchmarks time things on purpose
 * and are not read.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "..")
const skipped = new Set(["node_modules", ".git", ".cache", "build", "dist", ".data", ".turbo", "bench"])

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return []
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(path) : [relative(root, path)]
  })

/** Tests, test support and contract suites; the helper that owns the one sleep of a wait is not one of them. */
const testFiles = ["apps", "packages", "scripts"]
  .flatMap((dir) => filesUnder(join(root, dir)))
  .filter((file) => /\.(test|contract)\.ts$/.test(file) || /^(apps|packages)\/[^/]+\/test\/[^/]+\.ts$/.test(file))
  .filter((file) => file !== "packages/adapters/test/Eventually.ts" && file !== "scripts/fixed-sleeps.test.ts")

const waiting = /Effect\.sleep\(|setTimeout\(|(?<![.\w])sleep\(|Schedule\.(spaced|fixed)\(/
const excused = /\/\/ not a wait: \S/

/** `file:line: text` for each sleep or poll loop not excused. */
const offences = (file: string): Array<string> => {
  const lines = readFileSync(join(root, file), "utf8").split("\n")
  return lines.flatMap((line, index) =>
    waiting.test(line) && !excused.test(line) && !excused.test(lines[index - 1] ?? "")
      ? [`${file}:${index + 1}: ${line.trim()}`]
      : []
  )
}

describe("tests wait for what they wait for", () => {
  it("reads the repository's tests", () => {
    expect(testFiles.length).toBeGreaterThan(100)
    expect(testFiles).toContain("apps/api/src/Payments.test.ts")
  })

  it("no test sleeps a fixed time or polls by hand: `eventually`, or `TestClock`", () => {
    expect(testFiles.flatMap(offences)).toEqual([])
  })

  it("the check sees a sleep, and its excuse", () => {
    expect(waiting.test("yield* Effect.sleep(100)")).toBe(true)
    expect(waiting.test("await new Promise((r) => setTimeout(r, 50))")).toBe(true)
    expect(waiting.test("Effect.repeat({ schedule: Schedule.spaced(20) })")).toBe(true)
    expect(waiting.test("yield* TestClock.adjust(20)")).toBe(false)
    expect(excused.test("// not a wait: the receiver answers slowly on purpose")).toBe(true)
  })
})
