/**
 * The dependency rule (DESIGN §3): dependencies point inward.
 *
 * - `packages/domain` source imports only `effect`, `viem`, `@spruceid/siwe-parser`, `nanoid` (and its own files); `packages/contract`
 *   only `effect` and `@svc/domain`; `packages/v1` only those and `@svc/contract`.
 * - No package under `packages/` imports an app (`@svc/api`, `@svc/cli`, `@svc/migrate`, or a path into `apps/`).
 * - The web console's browser code (`apps/console/src`) calls the API only through `@svc/client` (issue 40): it imports
 *   the client, the domain (pure: permissions, money, the event catalog), React, TanStack Query, viem and `qrcode`,
 *   and its own files; never the contract, the adapters or another app.
 * - Only the HTTP adapter itself and the API's composition root (`apps/api/src/{Server,ServerOptions,main,AppConfig}.ts`, `TestServer.ts`) import
 *   the HTTP server (`@svc/adapters/http/server`): workers, tools and other apps use the domain's use cases.
 *
 * Tests and benchmarks may use dev-only tools (ethers, vitest) and the HTTP server; the second rule holds for every
 * file.
 * Run as a script it prints each violation and exits 1 when there is one.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"

/** The packages the domain may import, with their subpaths. */
export const domainAllowed = ["effect", "viem", "@spruceid/siwe-parser", "nanoid"] as const

/** Import lines that are text, not imports: the `/docs` guide's example code, in a template string. */
const textOnly = new Set(["packages/contract/src/ApiGuide.ts viem/accounts"])

/** What each inner package may import besides its own files: the domain, and the HTTP contract (DESIGN §3). */
const innerAllowed: Readonly<Record<string, ReadonlyArray<string>>> = {
  domain: domainAllowed,
  contract: ["effect", "@svc/domain"],
  v1: ["effect", "viem", "@svc/domain", "@svc/contract"]
}
const apps = ["@svc/api", "@svc/cli", "@svc/migrate", "@svc/console"]

/** What the console's browser code may import besides its own files. */
export const consoleAllowed = [
  "@svc/client",
  "@svc/domain",
  "react",
  "react-dom",
  "@tanstack/react-query",
  "viem",
  "qrcode"
] as const
const consoleSources = "apps/console/src/"

/** The HTTP server's module, and the files besides tests that may import it (paths from the workspace root). */
export const httpServer = "@svc/adapters/http/server"
export const httpServerImporters = [
  "packages/adapters/src/http/",
  "apps/api/src/Server.ts",
  "apps/api/src/main.ts",
  "apps/api/src/AppConfig.ts",
  "apps/api/src/ServerOptions.ts",
  "apps/api/test/TestServer.ts"
] as const
const httpServerDir = "packages/adapters/src/http/server"

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

const directories = (dir: string) => {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isDirectory())
  } catch {
    return []
  }
}

/** Whether `specifier`, imported by `file`, is the HTTP server or a file in it. */
const importsHttpServer = (root: string, file: string, specifier: string) => {
  if (specifier === httpServer || specifier.startsWith(`${httpServer}/`)) return true
  if (!specifier.startsWith(".")) return false
  const target = relative(root, resolve(file, "..", specifier))
  return target === httpServerDir || target.startsWith(`${httpServerDir}/`)
}

const mayImportHttpServer = (rel: string) =>
  isTestOrBench(rel) || httpServerImporters.some((allowed) => rel.startsWith(allowed))

/** Every violation of the rule in the workspace at `root`. */
export const findViolations = (root: string): Array<Violation> => {
  const violations: Array<Violation> = []
  const appsDir = resolve(root, "apps")
  for (const top of ["apps", "packages"] as const) {
    for (const dir of directories(resolve(root, top))) {
      const dirPath = resolve(root, top, dir.name)
      for (const file of sourceFiles(dirPath)) {
        const rel = relative(root, file)
        for (const specifier of importsOf(readFileSync(file, "utf8"))) {
          const relativeImport = specifier.startsWith(".")
          const target = relativeImport ? resolve(file, "..", specifier) : undefined
          if (top === "packages" && (apps.includes(packageOf(specifier)) || target?.startsWith(`${appsDir}/`))) {
            violations.push({ file: rel, specifier, rule: "a package must not import an app" })
            continue
          }
          if (!mayImportHttpServer(rel) && importsHttpServer(root, file, specifier)) {
            violations.push({ file: rel, specifier, rule: "only the API's composition root imports the HTTP server" })
            continue
          }
          const allowed =
            top === "packages" ? innerAllowed[dir.name] : rel.startsWith(consoleSources) ? consoleAllowed : undefined
          if (allowed === undefined || isTestOrBench(rel)) continue
          if (relativeImport) {
            if (!target?.startsWith(`${dirPath}/`)) {
              violations.push({ file: rel, specifier, rule: `the ${dir.name} imports only its own files` })
            }
          } else if (!allowed.includes(packageOf(specifier)) && !textOnly.has(`${rel} ${specifier}`)) {
            violations.push({ file: rel, specifier, rule: `the ${dir.name} may import only ${allowed.join(", ")}` })
          }
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
