/**
 * The docs point at what exists (issue 21, item 5): every relative link in the READMEs, docs/ and the decisions
 * reaches a file, and every source or doc path they name in backticks (`payment/PaymentExecution.ts`,
 * `docs/webhooks.md`) is a file of the repository, whole or as the end of a path. `reference/rise-api.md`, cited by
 * the migration tool's README but kept outside the repository, was such a path.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"

const root = resolve(import.meta.dirname, "..")
const skipped = new Set(["node_modules", ".git", ".cache", "build", "dist", ".data", ".turbo"])

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (skipped.has(entry.name)) return []
    const path = join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(path) : [relative(root, path)]
  })

const repository = filesUnder(root)
const docs = repository.filter(
  (file) =>
    file === "README.md" ||
    (file.startsWith("docs/") && file.endsWith(".md")) ||
    /^(apps|packages)\/[^/]+\/README\.md$/.test(file)
)

/** Whether `path` is a file of the repository, from `from`'s folder, from the root, or as the end of a path. */
const exists = (path: string, from: string) =>
  existsSync(join(root, dirname(from), path)) ||
  existsSync(join(root, path)) ||
  repository.some((file) => file.endsWith(`/${path}`))

describe("docs", () => {
  it("name only files that exist", () => {
    const missing: Array<string> = []
    for (const file of docs) {
      const text = readFileSync(join(root, file), "utf8")
      for (const [, target] of text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)) {
        if (target !== undefined && !/^[a-z]+:/.test(target) && !existsSync(join(root, dirname(file), target))) {
          missing.push(`${file}: link ${target}`)
        }
      }
      for (const [, path] of text.matchAll(
        /`([a-z][A-Za-z0-9_.-]*(?:\/[A-Za-z0-9_.-]+)+\.(?:md|ts|mjs|yaml|json|sol))`/g
      )) {
        if (path !== undefined && !exists(path, file)) missing.push(`${file}: ${path}`)
      }
    }
    expect(missing).toEqual([])
  })
})
