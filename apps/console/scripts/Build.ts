/**
 * The console is built from its sources, never committed (issue 40): `npm start` and `npm test` build it when what it
 * is built from changed since the build in `dist/` (its own files, the workspace packages it bundles, the lockfile),
 * as the bootstrap installs the workspace only when a manifest changed. An unchanged build is found by a hash of those
 * inputs kept beside it (`dist/.inputs`), in a few milliseconds.
 *
 * A build goes to a directory of its own and takes `dist/`'s place when complete, so a server that starts meanwhile
 * never reads half a build, and two builds at once both leave a whole one.
 *
 * `node apps/console/scripts/Build.ts` builds when needed; `--force` builds anyway.
 */
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"

/** The console's folder. */
export const consoleRoot = resolve(import.meta.dirname, "..")
/** Where the build goes: what the API serves at `/console` (its `CONSOLE_DIR` by default). */
export const consoleDist = join(consoleRoot, "dist")

const workspaceRoot = resolve(consoleRoot, "../..")
const stampName = ".inputs"

/** Files under `dir` that a build reads (tests and the build's own output aside), sorted. */
const sourcesUnder = (dir: string): Array<string> => {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return ["node_modules", "dist", "build"].includes(entry.name) ? [] : sourcesUnder(path)
      return /\.test\.tsx?$/.test(entry.name) ? [] : [path]
    })
    .sort()
}

/** Every file the build depends on: the console's sources and config, the packages it bundles, the lockfile. */
const inputFiles = () => [
  ...["index.html", "vite.config.ts", "package.json"].map((name) => join(consoleRoot, name)),
  ...sourcesUnder(join(consoleRoot, "src")),
  ...sourcesUnder(join(consoleRoot, "public")),
  ...["client", "domain", "contract"].flatMap((name) => [
    join(workspaceRoot, "packages", name, "package.json"),
    ...sourcesUnder(join(workspaceRoot, "packages", name, "src"))
  ]),
  join(workspaceRoot, "pnpm-lock.yaml")
]

/** A hash of every input's path and content. */
export const inputsHash = (): string => {
  const hash = createHash("sha256")
  for (const file of inputFiles()) {
    if (!existsSync(file) || !statSync(file).isFile()) continue
    hash.update(`${relative(workspaceRoot, file)}\n`).update(readFileSync(file))
  }
  return hash.digest("hex")
}

/** Whether `dist/` holds a build of the current inputs. */
export const isBuilt = (hash = inputsHash()): boolean => {
  const stamp = join(consoleDist, stampName)
  return existsSync(stamp) && readFileSync(stamp, "utf8") === hash
}

/** Builds the console into `dist/` now, in this process (which must run with `NODE_ENV=production`). */
const build = async (hash: string) => {
  const staging = join(consoleRoot, `.dist-${process.pid}-${Date.now()}`)
  const vite = await import("vite")
  try {
    await vite.build({
      root: consoleRoot,
      configFile: join(consoleRoot, "vite.config.ts"),
      mode: "production",
      logLevel: "warn",
      build: { outDir: staging, emptyOutDir: true }
    })
    writeFileSync(join(staging, stampName), hash)
    const previous = join(consoleRoot, `.dist-old-${process.pid}-${Date.now()}`)
    try {
      if (existsSync(consoleDist)) renameSync(consoleDist, previous)
      renameSync(staging, consoleDist)
    } catch (error) {
      // Another build of the same inputs took the place first: its build is as good as this one.
      if (!isBuilt(hash)) throw error
    }
    rmSync(previous, { recursive: true, force: true })
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

/**
 * Builds the console into `dist/` when its inputs changed (or always, with `force`); says which it did. The build
 * runs in a process of its own with `NODE_ENV=production` (a test runner's `NODE_ENV=test` would make React's
 * development build).
 */
export const ensureBuilt = async (options: { readonly force?: boolean } = {}): Promise<"built" | "up to date"> => {
  if (options.force !== true && isBuilt()) return "up to date"
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      [import.meta.filename, "--force"],
      { env: { ...process.env, NODE_ENV: "production" } },
      (error, _stdout, stderr) =>
        error === null ? resolve() : reject(new Error(`the console's build failed: ${stderr}`))
    )
  )
  return "built"
}

if (import.meta.main) {
  const started = Date.now()
  const hash = inputsHash()
  if (process.argv.includes("--force") || !isBuilt(hash)) {
    process.env.NODE_ENV = "production"
    await build(hash)
    console.error(`[console] built in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  }
}
