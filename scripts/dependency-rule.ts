/**
 * The dependency rule (DESIGN §3): dependencies point inward.
 *
 * - `packages/domain` source imports only `effect`, `viem`, `siwe`, `nanoid` (and its own files).
 * - No package under `packages/` imports an app (`@svc/api`, `@svc/cli`, `@svc/migrate`, or a path into `apps/`).
 *
 * Tests and benchmarks of the domain may use dev-only tools (ethers, vitest); the second rule holds for every file.
 * Run as a script it prints each violation and exits 1 when there is one.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"

/** The packages the domain may import, with their subpaths. */
export const domainAllowed = ["effect", "viem", "siwe", "nanoid"] as const
const apps = ["@svc/api", "@svc/cli", "@svc/migrate"]

/** One import that breaks the rule. */
export interface Violation {
  readonly file: string
  readonly specifier: string
  readonly rule: string
}

const importPattern =
  /(?:^|[\s;}])(?:import|export)\s[^'"`]*?from\s*["']([^"']+)["']|(?:^|[\s;(])import\s*\(\s*["']([^"']+)["']\s*\)|(?:^|[\s;])import\s*["']([^"']+)["']/gm

/** The module specifiers a TypeScript source imports or re-exports. */
export const importsOf = (source: string): Array<string> =>
  Array.from(source.matchAll(importPattern), (match) => match[1] ?? match[2] ?? match[3] ?? "").filter(Boolean)

const packageOf = (specifier: string) => {
  const parts = specifier.split("/")
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier)
}

const sourceFiles = (dir: string): Array<string> => {
  const entries = (() => {
    try {
      return readdirSync(dir, { withFileTypes: true })
    } catch {
      return []
    }
  })()
  return entries.flatMap((entry) => {
    if (entry.name === "node_modules" || entry.name === "build" || entry.name.startsWith(".")) return []
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(path)
    return /\.(c|m)?tsx?$/.test(entry.name) ? [path] : []
  })
}

const isTestOrBench = (file: string) => /\.(test|bench)\.tsx?$/.test(file) || /(^|\/)(bench|test)\//.test(file)

/** Every violation of the rule in the workspace at `root`. */
export const findViolations = (root: string): Array<Violation> => {
  const violations: Array<Violation> = []
  const appsDir = resolve(root, "apps")
  for (const pkg of readdirSync(resolve(root, "packages"), { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue
    const pkgDir = resolve(root, "packages", pkg.name)
    for (const file of sourceFiles(pkgDir)) {
      const rel = relative(root, file)
      for (const specifier of importsOf(readFileSync(file, "utf8"))) {
        const relativeImport = specifier.startsWith(".")
        const target = relativeImport ? resolve(file, "..", specifier) : undefined
        if (apps.includes(packageOf(specifier)) || target?.startsWith(`${appsDir}/`)) {
          violations.push({ file: rel, specifier, rule: "a package must not import an app" })
          continue
        }
        if (pkg.name !== "domain" || isTestOrBench(rel)) continue
        if (relativeImport) {
          if (!target?.startsWith(`${pkgDir}/`)) {
            violations.push({ file: rel, specifier, rule: "the domain imports only its own files" })
          }
        } else if (!(domainAllowed as ReadonlyArray<string>).includes(packageOf(specifier))) {
          violations.push({ file: rel, specifier, rule: `the domain may import only ${domainAllowed.join(", ")}` })
        }
      }
    }
  }
  return violations
}

if (import.meta.main) {
  const root = resolve(import.meta.dirname, "..")
  const violations = findViolations(root)
  for (const v of violations) console.error(`${v.file}: imports "${v.specifier}": ${v.rule}`)
  if (violations.length > 0) process.exit(1)
  console.log("dependency rule: ok")
}
