/**
 * What other teams install, installed as they would (issue 20, item 6; issue 35, items 1 and 2): `@svc/domain`,
 * `@svc/contract` and `@svc/client` packed (`scripts/pack.ts`) and installed with npm into an empty project outside
 * the workspace, beside viem and ethers from the registry. Each tarball states `engines`, and viem is a peer: the
 * project holds one viem. There, on plain Node 24 with no loader, every export of every package imports; an ethers
 * signer signs in and pays a team member of a real server settling on anvil; the client README's code blocks and the
 * docs' code that uses the client compile under `strict` (`module: nodenext`, `skipLibCheck: false`) against the
 * shipped `.d.ts`, and the README's run against the server (a viem account signs in, pays, reads, is refused, receives
 * a webhook). No tarball holds a test, and the client pulls in no server dependency. The command line, packed as one
 * bundled file, installs globally from its tarball and answers `svc --help` and `svc health` against the server.
 */
import { execFile } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { typeScriptBlocks, usesClient } from "../test/CodeBlocks.ts"
import { ChainTestServer, fundedTeam } from "../test/TestServer.ts"

const root = resolve(import.meta.dirname, "..", "..", "..")

/** Runs `command` in `cwd`; answers its stdout, or fails with its output. */
const sh = (command: string, args: ReadonlyArray<string>, cwd: string, env: Record<string, string> = {}) =>
  Effect.promise(
    () =>
      new Promise<string>((done, fail) =>
        execFile(
          command,
          [...args],
          { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 },
          (error, stdout, stderr) =>
            error === null
              ? done(stdout)
              : fail(new Error(`${command} ${args.join(" ")}: ${error.message}\n${stdout}\n${stderr}`))
        )
      )
  )

/** Imports every export of the installed packages (their manifests' `exports`); prints how many. */
const importAll = `
import { readFileSync } from "node:fs"
let count = 0
for (const name of ["@svc/domain", "@svc/contract", "@svc/client"]) {
  const manifest = JSON.parse(readFileSync(new URL(\`./node_modules/\${name}/package.json\`, import.meta.url), "utf8"))
  for (const subpath of Object.keys(manifest.exports)) {
    // Some hold only types (\`Lease\`): loading is what is checked.
    await import(name + subpath.slice(1))
    count++
  }
}
console.log(JSON.stringify({ count }))
`

/** Signs in and pays with an ethers signer (the README's code pays with a viem account). */
const pay = `
import { createSvcClient } from "@svc/client"
import { Wallet } from "ethers"
const { BASE_URL, ADMIN_KEY, TEAM, MEMBER } = process.env
const svc = createSvcClient({ baseUrl: BASE_URL, account: new Wallet(ADMIN_KEY) })
const result = await svc.payments.pay({ team: TEAM, to: [{ to: MEMBER, amount_cents: 250, invoice_description: "from a tarball" }] })
console.log(JSON.stringify({ paid: [result.transaction] }))
`

/** Runs the compiled README blocks named, in order, each announced by a line `=== <file>`. */
const runReadme = `
for (const file of process.argv.slice(2)) {
  console.log(\`=== \${file}\`)
  await import(\`./out/readme/\${file}\`)
}
`

/** A typed consumer: what an integrator writes, checked against the shipped declarations. */
const typed = `
import { createSvcClient, SvcError, type TypedDataBundle, verifyWebhook } from "@svc/client"
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts"

const svc = createSvcClient({ baseUrl: "http://127.0.0.1:3000", account: privateKeyToAccount(generatePrivateKey()) })
export const paid: Promise<string> = svc.payments
  .pay({ team: "te-xxxxxxxxxxxx", to: [{ to: "us-xxxxxxxxxxxx", amount_cents: 100 }] })
  .then((result) => result.transaction)
export const token: Promise<string> = svc.token()
export const code = (error: unknown): string | undefined => (error instanceof SvcError ? error.errorCode : undefined)
export const event = (body: string, headers: Record<string, string>) => verifyWebhook({ secret: "whsec_x", body, headers })
export type Bundle = TypedDataBundle
`

layer(ChainTestServer.layer, { timeout: 600_000, excludeTestServices: true })("packages from tarballs", (it) => {
  it.effect(
    "install on plain Node, import every export, pay with viem and ethers, and type-check",
    () =>
      Effect.gen(function* () {
        const { server } = yield* ChainTestServer
        const t = yield* fundedTeam(100_000_000n)
        const work = mkdtempSync(join(tmpdir(), "svc-consumer-"))
        yield* Effect.addFinalizer(() => Effect.sync(() => rmSync(work, { recursive: true, force: true })))
        const packed = (yield* sh(process.execPath, [join(root, "scripts", "pack.ts"), join(work, "tarballs")], root))
          .trim()
          .split("\n")
        assert.strictEqual(packed.length, 4)
        const tarballs = packed.slice(0, 3)
        const cli = packed[3] as string
        for (const tarball of packed) {
          const files = yield* sh("tar", ["tzf", tarball], work)
          assert.notMatch(files, /\.(test|bench)\.|\/src\//, tarball)
          assert.match(files, /package\/dist\/[A-Za-z]+\.m?js/, tarball)
        }
        const project = join(work, "consumer")
        yield* sh("mkdir", ["-p", project], work)
        writeFileSync(
          join(project, "package.json"),
          JSON.stringify({ name: "consumer", private: true, type: "module" })
        )
        yield* sh(
          "npm",
          [
            "install",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            ...tarballs,
            "viem@2.57.1",
            "ethers@6.17.0",
            "@types/node@24.19.2"
          ],
          project
        )
        // The client brings no server: no database driver, mailer, node or adapters.
        for (const absent of ["mongodb", "nodemailer", "@foundry-rs", "@svc/adapters", "jose"]) {
          assert.isFalse(existsSync(join(project, "node_modules", absent)), `${absent} was installed`)
        }
        assert.deepStrictEqual(readdirSync(join(project, "node_modules", "@svc")).sort(), [
          "client",
          "contract",
          "domain"
        ])
        // Each tarball states the Node it needs and takes the project's viem, a peer: the project holds one viem.
        for (const name of ["domain", "contract", "client"]) {
          const manifest = JSON.parse(
            readFileSync(join(project, "node_modules", "@svc", name, "package.json"), "utf8")
          ) as Record<string, Record<string, string> | undefined>
          assert.match(manifest.engines?.node ?? "", /^>=\d+$/, name)
          assert.match(manifest.peerDependencies?.viem ?? "", /^\^2\./, name)
          assert.isUndefined(manifest.dependencies?.viem, name)
        }
        const viems = new Set((yield* sh("npm", ["ls", "viem", "--all", "--parseable"], project)).trim().split("\n"))
        assert.deepStrictEqual([...viems], [join(project, "node_modules", "viem")])

        writeFileSync(join(project, "import-all.mjs"), importAll)
        const imported = JSON.parse(yield* sh(process.execPath, ["import-all.mjs"], project)) as { count: number }
        assert.isAtLeast(imported.count, 30)

        writeFileSync(join(project, "pay.mjs"), pay)
        const env = { BASE_URL: server.baseUrl, ADMIN_KEY: t.adminKey, TEAM: t.team, MEMBER: t.employee.user }
        const { paid } = JSON.parse(yield* sh(process.execPath, ["pay.mjs"], project, env)) as { paid: Array<string> }
        assert.strictEqual(paid.length, 1)
        for (const transaction of paid) assert.match(transaction, /^0x[0-9a-f]{64}$/)

        // The client README's code blocks and the docs' code that uses the client, pasted into files of the project.
        const readme = typeScriptBlocks(join(root, "packages", "client", "README.md"), "readme")
        const docs = readdirSync(join(root, "docs"))
          .filter((file) => file.endsWith(".md"))
          .flatMap((file) => typeScriptBlocks(join(root, "docs", file), file.replace(/\.md$/, "")).filter(usesClient))
        assert.isAtLeast(readme.length, 6)
        assert.isAtLeast(docs.length, 1)
        assert.strictEqual(
          new Set(readme.map((block) => block.file)).size,
          readme.length,
          "two README blocks, one name"
        )
        for (const [dir, blocks] of [
          ["readme", readme],
          ["docs", docs]
        ] as const) {
          mkdirSync(join(project, dir))
          for (const block of blocks) writeFileSync(join(project, dir, block.file), block.code)
        }
        writeFileSync(join(project, "consumer.ts"), typed)
        writeFileSync(
          join(project, "tsconfig.json"),
          JSON.stringify({
            compilerOptions: {
              module: "nodenext",
              moduleResolution: "nodenext",
              target: "es2024",
              strict: true,
              skipLibCheck: false,
              types: ["node"],
              rootDir: ".",
              outDir: "out"
            },
            include: ["consumer.ts", "readme", "docs"]
          })
        )
        yield* sh(
          process.execPath,
          [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"],
          project
        )
        // The README's blocks, run in order against the server as the demo admin would: each is a program, imported in
        // turn by one process (Node loads the packages once), which marks where each one's output starts.
        writeFileSync(join(project, "run-readme.mjs"), runReadme)
        const output = yield* sh(
          process.execPath,
          ["run-readme.mjs", ...readme.map((block) => block.file.replace(/\.ts$/, ".js"))],
          project,
          { SVC_URL: server.baseUrl, SVC_PRIVATE_KEY: t.adminKey }
        )
        const printed = new Map(
          output
            .split(/^=== /m)
            .slice(1)
            .map((part) => [part.slice(0, part.indexOf("\n")).replace(/\.js$/, ".ts"), part] as const)
        )
        assert.deepStrictEqual(
          [...printed.keys()],
          readme.map((block) => block.file)
        )
        assert.match(printed.get("pay.ts") ?? "", /^paid .+ 12\.34 USDC: 0x[0-9a-f]{64}$/m)
        assert.include(printed.get("session.ts") ?? "", t.admin.address.toLowerCase())
        assert.include(printed.get("members.ts") ?? "", t.employee.user)
        assert.match(printed.get("errors.ts") ?? "", /^TEAM_NOT_FOUND 404 /m)
        assert.match(printed.get("errors.ts") ?? "", /^VALIDATION_ERROR - Invalid request: Expected a team id/m)
        assert.match(printed.get("webhooks.ts") ?? "", /^payment\.sent: \d+ cents$/m)

        // The command line: `npm i -g` of its tarball, then `svc` as a user runs it.
        const global = join(work, "global")
        yield* sh(
          "npm",
          ["install", "--global", "--prefix", global, "--no-audit", "--no-fund", "--loglevel=error", cli],
          work
        )
        const svc = join(global, "bin", "svc")
        assert.match(yield* sh(svc, ["--help"], work), /USAGE\s+svc <subcommand>/)
        assert.match(yield* sh(svc, ["health", "--url", server.baseUrl], work), /ok/i)
      }).pipe(Effect.scoped),
    // Pack, install, type-check and run: a minute on a busy machine, under a second of it waiting on the chain.
    300_000
  )
})
