/**
 * Packs the packages other teams install (issue 20): `@svc/domain`, `@svc/contract` and `@svc/client`, built to ESM
 * JavaScript with `.d.ts` beside it. In the workspace their `exports` name the TypeScript sources, which Node runs as
 * they are; Node refuses to strip types inside `node_modules`, so the tarball's `package.json` names `dist/` instead,
 * with the `types` and `default` conditions, and ships `dist/` only (no test, benchmark or source).
 *
 * The command line, `@svc/cli`, is packed as one bundled file (`packCli`).
 *
 * `npm run pack:packages -- <out-dir>` (any Node from 20 on, through the bootstrap) or `node scripts/pack.ts <out-dir>`
 * (Node 24) prints the tarballs' paths, one a line (the CLI's last). Each manifest states `engines`, and viem is a
 * peer, so an integrator's own viem is the one used. One `tsc` program builds the three, so an import of another of
 * them stays a bare specifier, resolved at run time to that package's `dist/`.
 */
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const packed = ["domain", "contract", "client"] as const

interface Manifest {
  readonly name: string
  readonly version: string
  readonly exports: Record<string, string>
  readonly dependencies?: Record<string, string>
  readonly [field: string]: unknown
}

const manifestOf = (dir: string) =>
  JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Manifest

/** `./src/eip712/index.ts` → the built files' conditions. */
const built = (source: string) => {
  const base = source.replace(/^\.\/src\//, "./dist/").replace(/\.ts$/, "")
  return { types: `${base}.d.ts`, default: `${base}.js` }
}

/** The tarball's manifest: the built exports, only `dist/`, and the workspace's versions for its own packages. */
export const publishedManifest = (manifest: Manifest, versions: ReadonlyMap<string, string>) => {
  const { scripts: _scripts, devDependencies: _dev, ...rest } = manifest
  return {
    ...rest,
    exports: Object.fromEntries(Object.entries(manifest.exports).map(([key, source]) => [key, built(source)])),
    files: ["dist"],
    ...(manifest.dependencies === undefined
      ? {}
      : {
          dependencies: Object.fromEntries(
            Object.entries(manifest.dependencies).map(([name, range]) => [
              name,
              range.startsWith("workspace:") ? (versions.get(name) ?? range) : range
            ])
          )
        })
  }
}

/** Builds the three and packs each into `out`; answers the tarballs' paths. */
export const packAll = (out: string): Array<string> => {
  const stage = join(root, ".cache", "pack")
  rmSync(stage, { recursive: true, force: true })
  execFileSync(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.pack.json"], {
    cwd: root,
    stdio: "inherit"
  })
  mkdirSync(out, { recursive: true })
  const manifests = new Map(packed.map((dir) => [dir, manifestOf(dir)]))
  const versions = new Map([...manifests.values()].map((m) => [m.name, m.version]))
  return packed.map((dir) => {
    const manifest = manifests.get(dir) as Manifest
    const target = join(stage, "packages", dir)
    mkdirSync(target, { recursive: true })
    cpSync(join(stage, "build", dir, "src"), join(target, "dist"), { recursive: true })
    for (const doc of ["README.md", "CHANGELOG.md", "LICENSE"]) {
      if (existsSync(join(root, "packages", dir, doc))) cpSync(join(root, "packages", dir, doc), join(target, doc))
    }
    writeFileSync(join(target, "package.json"), `${JSON.stringify(publishedManifest(manifest, versions), null, 2)}\n`)
    const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: target, encoding: "utf8" })
    return join(out, name.trim().split("\n").at(-1) ?? "")
  })
}

/**
 * Packs the command line, `@svc/cli`: one ESM file bundled with everything it uses (esbuild), so
 * `npm i -g ./svc-cli-*.tgz` installs `svc` with nothing to resolve; answers the tarball's path.
 */
export const packCli = async (out: string): Promise<string> => {
  const { build } = await import("esbuild")
  const manifest = JSON.parse(readFileSync(join(root, "apps", "cli", "package.json"), "utf8")) as Manifest
  const target = join(root, ".cache", "pack", "cli")
  rmSync(target, { recursive: true, force: true })
  await build({
    entryPoints: [join(root, "apps", "cli", "src", "bin.ts")],
    outfile: join(target, "dist", "svc.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    legalComments: "none",
    logLevel: "warning",
    // The bundle is ESM; the CommonJS it holds may `require` Node's own modules.
    banner: {
      js: 'import { createRequire as svcRequire } from "node:module";const require = svcRequire(import.meta.url);'
    }
  })
  const source = readFileSync(join(target, "dist", "svc.mjs"), "utf8")
  writeFileSync(join(target, "dist", "svc.mjs"), `#!/usr/bin/env node\n${source.replace(/^#!.*\n/, "")}`, {
    mode: 0o755
  })
  if (existsSync(join(root, "apps", "cli", "README.md")))
    cpSync(join(root, "apps", "cli", "README.md"), join(target, "README.md"))
  writeFileSync(
    join(target, "package.json"),
    `${JSON.stringify(
      {
        name: manifest.name,
        version: manifest.version,
        description: manifest.description,
        type: "module",
        license: manifest.license,
        bin: { svc: "./dist/svc.mjs" },
        files: ["dist"],
        engines: { node: ">=24" }
      },
      null,
      2
    )}\n`
  )
  mkdirSync(out, { recursive: true })
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", out], { cwd: target, encoding: "utf8" })
  return join(out, name.trim().split("\n").at(-1) ?? "")
}

if (import.meta.main) {
  const out = resolve(process.argv[2] ?? join(root, ".cache", "tarballs"))
  for (const tarball of packAll(out)) console.log(tarball)
  console.log(await packCli(out))
}
