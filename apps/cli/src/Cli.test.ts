/**
 * `svc` as a person runs it: the real CLI as a child process against `npm start`'s entry point (the embedded stack:
 * SQLite, anvil, the contracts and the demo team in a data directory of its own), over real HTTP. Signs in with a
 * raw key and with an encrypted keystore, lists teams and users, pays two members from a CSV (typed data signed by
 * the CLI, the transfers checked on chain), prints the API's JSON exactly, and fails cleanly on API and argument errors.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { encryptKeystoreJson } from "ethers"
import { type Address, createPublicClient, erc20Abi, type Hex, http } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"

const bin = resolve(import.meta.dirname, "bin.ts")
const main = resolve(import.meta.dirname, "../../api/src/main.ts")

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

/** The embedded server of `npm start`, with what it printed. */
class Embedded extends Context.Service<
  Embedded,
  {
    readonly base: string
    readonly rpcUrl: string
    readonly team: string
    readonly company: string
    readonly adminKey: Hex
    readonly token: Address
    /** A config directory signed in as the demo admin (with `SVC_PRIVATE_KEY`, once for the file). */
    readonly admin: string
  }
>()("test/cli/Embedded") {}

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

// The embedded defaults: none of the production settings (or svc settings) a developer's shell may carry.
const cleanEnv = () => {
  const env: Record<string, string | undefined> = { ...process.env }
  for (const name of Object.keys(env)) {
    if (
      name.startsWith("SVC_") ||
      ["MONGODB_URI", "JWT_SECRET", "PUBLIC_BASE_URL", "RPC_URL", "CHAIN_ID"].includes(name)
    ) {
      delete env[name]
    }
  }
  delete env.RELAYER_PRIVATE_KEY
  delete env.NO_COLOR
  return env
}

const killGroup = (child: ChildProcess) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  } catch {
    // Already gone.
  }
}

const tempDir = (prefix: string) =>
  Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), prefix))),
    (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
  )

/** `npm start`'s entry point in a process group of its own, with a fresh data directory; killed with the layer. */
const EmbeddedLayer = Layer.effect(
  Embedded,
  Effect.gen(function* () {
    const dataDir = yield* tempDir("svc-cli-data-")
    const started = yield* Effect.acquireRelease(
      Effect.callback<{ child: ChildProcess; output: string }, Error>((resume) => {
        const child = spawn(process.execPath, [main], {
          env: { ...cleanEnv(), PORT: "0", SVC_DATA_DIR: dataDir },
          stdio: ["ignore", "pipe", "pipe"],
          detached: true
        })
        let output = ""
        const timer = setTimeout(() => resume(Effect.fail(new Error(`not serving in time:\n${output}`))), 90_000)
        const onData = (chunk: Buffer) => {
          output += chunk.toString()
          if (/svc API at http/.test(output)) {
            clearTimeout(timer)
            resume(Effect.succeed({ child, output }))
          }
        }
        child.stdout.on("data", onData)
        child.stderr.on("data", onData)
      }),
      ({ child }) => Effect.sync(() => killGroup(child))
    )
    const read = (pattern: RegExp) => pattern.exec(started.output)?.[1] ?? ""
    const state = JSON.parse(readFileSync(join(dataDir, "embedded.json"), "utf8"))
    const base = read(/svc API at (http:\/\/\S+)/)
    const adminKey = read(/Demo admin key: +(0x[0-9a-f]{64})/) as Hex
    const admin = yield* tempDir("svc-cli-config-")
    const login = yield* run(base, ["login"], { config: admin, env: { SVC_PRIVATE_KEY: adminKey } })
    if (login.code !== 0) return yield* Effect.die(new Error(`login: ${login.stderr}`))
    return {
      base,
      rpcUrl: read(/anvil at (http:\/\/\S+)/),
      team: read(/Demo team: +(te-\S{12})/),
      company: read(/Demo company: +(co-\S{12})/),
      adminKey,
      token: state.suite.token as Address,
      admin
    }
  })
)

/** Runs `svc` with `args` as a child process against `base`, its config in `options.config`. */
const run = (
  base: string,
  args: ReadonlyArray<string>,
  options: { readonly config: string; readonly env?: Record<string, string> | undefined }
) =>
  Effect.callback<Run>((resume) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { timeout: 60_000, env: { ...cleanEnv(), SVC_URL: base, XDG_CONFIG_HOME: options.config, ...options.env } },
      (error, stdout, stderr) =>
        resume(Effect.succeed({ code: typeof error?.code === "number" ? error.code : error ? 1 : 0, stdout, stderr }))
    )
  })

/** Runs `svc` against the embedded server. */
const svc = (
  args: ReadonlyArray<string>,
  options: { readonly config: string; readonly env?: Record<string, string> }
) => Effect.flatMap(Embedded, ({ base }) => run(base, args, options))

const ok = (run: Run) => {
  assert.strictEqual(run.code, 0, `exit ${run.code}\n${run.stderr}`)
  return run
}

/** The config directory signed in as the demo admin. */
const signedIn = Effect.map(Embedded, ({ admin }) => admin)

const jwtOf = (config: string): string => {
  const file = JSON.parse(readFileSync(join(config, "svc", "credentials.json"), "utf8"))
  return (Object.values(file.sessions)[0] as { jwt: string }).jwt
}

const api = (path: string, token: string) =>
  Effect.gen(function* () {
    const { base } = yield* Embedded
    return yield* Effect.promise(() =>
      fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text())
    )
  })

layer(EmbeddedLayer, { timeout: 180_000, excludeTestServices: true })("svc against npm start", (it) => {
  it.effect("login with SVC_PRIVATE_KEY keeps the JWT in a 0600 file without the key; whoami, logout", () =>
    Effect.gen(function* () {
      const { adminKey } = yield* Embedded
      const config = yield* tempDir("svc-cli-config-")
      const login = ok(yield* svc(["login"], { config, env: { SVC_PRIVATE_KEY: adminKey } }))
      const wallet = privateKeyToAccount(adminKey).address.toLowerCase()
      assert.include(login.stdout, wallet)
      const file = join(config, "svc", "credentials.json")
      assert.strictEqual(statSync(file).mode & 0o777, 0o600)
      assert.strictEqual(statSync(join(config, "svc")).mode & 0o777, 0o700)
      const kept = readFileSync(file, "utf8")
      assert.notInclude(kept.toLowerCase(), adminKey.slice(2).toLowerCase())
      assert.notInclude(login.stdout + login.stderr, adminKey.slice(2))
      // Signed in without the key in the environment from now on.
      const whoami = ok(yield* svc(["--json", "whoami"], { config }))
      assert.strictEqual(JSON.parse(whoami.stdout).wallet, wallet)
      assert.strictEqual(JSON.parse(whoami.stdout).signed_in, true)
      ok(yield* svc(["logout"], { config }))
      const after = yield* svc(["teams", "list"], { config })
      assert.strictEqual(after.code, 1)
      assert.include(after.stderr, "not signed in")
      assert.include(after.stderr, "svc login")
    }).pipe(Effect.scoped)
  )

  it.effect("login with an encrypted keystore (password from SVC_KEY_PASSWORD); a wrong password is refused", () =>
    Effect.gen(function* () {
      const config = yield* tempDir("svc-cli-config-")
      const key = generatePrivateKey()
      // ethers writes the same scrypt keystore as foundry; a small N keeps the test fast.
      const keystore = yield* Effect.promise(() =>
        encryptKeystoreJson({ address: privateKeyToAccount(key).address, privateKey: key }, "correct horse", {
          scrypt: { N: 1024 }
        })
      )
      const path = join(config, "key.json")
      writeFileSync(path, keystore)
      const wrong = yield* svc(["--key-file", path, "login"], { config, env: { SVC_KEY_PASSWORD: "wrong" } })
      assert.strictEqual(wrong.code, 1)
      assert.include(wrong.stderr, "wrong password")
      assert.notInclude(wrong.stderr, "    at ")
      const login = ok(
        yield* svc(["--key-file", path, "login"], { config, env: { SVC_KEY_PASSWORD: "correct horse" } })
      )
      assert.include(login.stdout, privateKeyToAccount(key).address.toLowerCase())
      assert.notInclude(readFileSync(join(config, "svc", "credentials.json"), "utf8"), key.slice(2))
      // A new wallet is a new user with no team yet.
      const teams = ok(yield* svc(["teams", "list"], { config }))
      assert.include(teams.stdout, "No teams.")
    }).pipe(Effect.scoped)
  )

  it.effect("teams and users as tables; --json prints the API's JSON exactly", () =>
    Effect.gen(function* () {
      const { team } = yield* Embedded
      const config = yield* signedIn
      // Independent commands, run side by side.
      const [tableRun, jsonRun, usersRun, filtered] = yield* Effect.all(
        [
          svc(["teams", "list"], { config }),
          svc(["--json", "teams", "list"], { config }),
          svc(["users", "list", "--team", team, "--json"], { config }),
          svc(["users", "list", "--team", team, "--email", "erin@demo.example"], { config })
        ],
        { concurrency: "unbounded" }
      )
      const table = ok(tableRun).stdout
      assert.match(table, /^TEAM +NAME +ROLE +MEMBERS +STATUS\n/)
      assert.match(table, new RegExp(`${team} +Demo Team +team_admin +3 +active`))
      assert.notInclude(table, "\u001b[")
      assert.strictEqual(ok(jsonRun).stdout.trim(), yield* api("/v2/user/teams", jwtOf(config)))
      assert.strictEqual(ok(usersRun).stdout.trim(), yield* api(`/v2/teams/${team}/users`, jwtOf(config)))
      assert.include(ok(filtered).stdout, "Erin Employee")
      assert.notInclude(filtered.stdout, "Carl")
    }).pipe(Effect.scoped)
  )

  it.effect("pays two members from a CSV: signed by the CLI, executed, and the money moved on chain", () =>
    Effect.gen(function* () {
      const { team, rpcUrl, token, adminKey } = yield* Embedded
      const config = yield* signedIn
      const users: Array<Json> = JSON.parse(
        ok(yield* svc(["--json", "users", "list", "--team", team], { config })).stdout
      ).data.users.filter((user: Json) => user.payable)
      assert.strictEqual(users.length, 2)
      const chain = createPublicClient({ transport: http(rpcUrl) })
      const balanceOf = (account: Address) =>
        Effect.promise(() =>
          chain.readContract({ address: token, abi: erc20Abi, functionName: "balanceOf", args: [account] })
        )
      const teamAccount = JSON.parse(ok(yield* svc(["--json", "balance", team], { config })).stdout).data
        .svc_account_address as Address
      const before = [yield* balanceOf(teamAccount), ...(yield* Effect.forEach(users, (u) => balanceOf(u.svc_account)))]
      const csv = join(config, "payroll.csv")
      writeFileSync(
        csv,
        `recipient,amount,description\n${users[0].nanoid},12.34,"March, design"\n${users[1].nanoid},5\n`
      )

      const refused = yield* svc(["pay", "--team", team, "--csv", csv], { config, env: { SVC_PRIVATE_KEY: adminKey } })
      assert.strictEqual(refused.code, 1)
      assert.include(refused.stderr, "--yes")
      assert.include(refused.stdout, "$17.34")

      const paid = ok(
        yield* svc(["pay", "--team", team, "--csv", csv, "--yes", "--json"], {
          config,
          env: { SVC_PRIVATE_KEY: adminKey }
        })
      )
      const answer = JSON.parse(paid.stdout.trim())
      assert.strictEqual(answer.success, true)
      assert.strictEqual(answer.data.payments.length, 2)
      assert.include(paid.stderr, "batch 1/1")
      const receipt = yield* Effect.promise(() => chain.getTransactionReceipt({ hash: answer.data.transaction }))
      assert.strictEqual(receipt.status, "success")
      const units = 10n ** 4n
      assert.strictEqual(yield* balanceOf(teamAccount), (before[0] as bigint) - 1734n * units)
      assert.strictEqual(yield* balanceOf(users[0].svc_account), (before[1] as bigint) + 1234n * units)
      assert.strictEqual(yield* balanceOf(users[1].svc_account), (before[2] as bigint) + 500n * units)

      // An intent from a --to entry: registered, signed the same way.
      const later = ok(
        yield* svc(["pay", "--team", team, "--to", `${users[1].nanoid}=1.00`, "--later", "--yes"], {
          config,
          env: { SVC_PRIVATE_KEY: adminKey }
        })
      )
      assert.include(later.stdout, "Registered intents for $1.00 to 1 payees")

      const payments = ok(yield* svc(["payments", "list", "--team", team, "--state", "complete"], { config })).stdout
      assert.include(payments, "$12.34")
      assert.include(payments, "March, design")
      const balance = ok(yield* svc(["balance", team], { config })).stdout
      assert.match(balance, /USD +\$[\d,]+\.\d{2}/)
    }).pipe(Effect.scoped)
  )

  it.effect("teams and members: create, update, settings, summary, remove, delete; pay-instant", () =>
    Effect.gen(function* () {
      const { team, company, adminKey } = yield* Embedded
      const config = yield* signedIn
      const admin = privateKeyToAccount(adminKey).address.toLowerCase()
      const created = JSON.parse(
        ok(
          yield* svc(["--json", "teams", "create", "--name", "Ops", "--company", company, "--admin", admin], { config })
        ).stdout
      ).data.team_nanoid as string
      const users: Array<Json> = JSON.parse(
        ok(yield* svc(["--json", "users", "list", "--team", team], { config })).stdout
      ).data.users
      const erin = users.find((u) => u.email === "erin@demo.example")
      const [renamed, settings, memberSettings, summary] = yield* Effect.all(
        [
          svc(["teams", "update", created, "--name", "Operations"], { config }),
          svc(["teams", "settings", "set", created, "--invoice-prefix", "OPS-", "--reminder-days", "5"], { config }),
          svc(["members", "settings", "set", team, erin.nanoid, "--hourly-rate", "85.50", "--notifications", "false"], {
            config
          }),
          svc(["members", "summary", team, erin.nanoid], { config })
        ],
        { concurrency: "unbounded" }
      )
      assert.include(ok(renamed).stdout, "Operations")
      assert.match(ok(settings).stdout, /Invoice prefix: +OPS-/)
      assert.match(ok(memberSettings).stdout, /Hourly rate: +\$85\.50/)
      assert.match(ok(summary).stdout, /Email: +erin@demo\.example/)
      const [teamSettings, readBack] = yield* Effect.all(
        [
          svc(["--json", "teams", "settings", "get", created], { config }),
          svc(["--json", "members", "settings", "get", team, erin.nanoid], { config })
        ],
        { concurrency: "unbounded" }
      )
      assert.strictEqual(JSON.parse(ok(teamSettings).stdout).data.payment_reminder_days, 5)
      assert.strictEqual(JSON.parse(ok(readBack).stdout).data.hourly_rate_usd_cents, 8550)
      assert.include(ok(yield* svc(["teams", "delete", created], { config })).stdout, `Deleted team ${created}`)

      const instant = ok(
        yield* svc(["pay-instant", "--team", team, "--email", "outside@example.com", "--amount", "2.50", "--yes"], {
          config,
          env: { SVC_PRIVATE_KEY: adminKey }
        })
      )
      assert.match(instant.stdout, /Paid \$2\.50 to outside@example\.com, transaction 0x[0-9a-f]{64}/)

      const carl = users.find((u) => u.email === "carl@demo.example")
      assert.include(
        ok(yield* svc(["members", "remove", team, carl.nanoid], { config })).stdout,
        `Removed ${carl.nanoid}`
      )
    }).pipe(Effect.scoped)
  )

  it.effect("an API error prints its message and code on stderr and exits 1; bad arguments say which and why", () =>
    Effect.gen(function* () {
      const config = yield* signedIn
      const [missing, webhook, decimals, badTeam, unknown] = yield* Effect.all(
        [
          svc(["teams", "get", "te-aaaaaaaaaaaa"], { config }),
          svc(["webhooks", "get", "wh-aaaaaaaaaaaa"], { config }),
          svc(["pay", "--team", "te-aaaaaaaaaaaa", "--to", "us-aaaaaaaaaaaa=1.234"], { config }),
          svc(["teams", "get", "team-1"], { config }),
          svc(["teams", "frobnicate"], { config })
        ],
        { concurrency: "unbounded" }
      )
      assert.strictEqual(missing.code, 1)
      assert.strictEqual(missing.stdout, "")
      assert.strictEqual(missing.stderr.trim(), "error: Team not found (TEAM_NOT_FOUND, HTTP 404)")
      // Routes other issues are still building answer with their status and code, cleanly.
      assert.strictEqual(webhook.code, 1)
      assert.match(webhook.stderr, /^error: .+ \([A-Z_]+, HTTP \d{3}\)\n$/)
      assert.strictEqual(decimals.code, 1)
      assert.include(decimals.stderr, 'invalid --to: "1.234" has more than 2 decimals')
      assert.strictEqual(badTeam.code, 1)
      assert.include(badTeam.stderr, 'invalid team: "team-1" is not a team nanoid')
      assert.strictEqual(unknown.code, 1)
      for (const run of [missing, webhook, decimals, badTeam, unknown]) assert.notInclude(run.stderr, "    at ")
    }).pipe(Effect.scoped)
  )

  it.effect("--help describes every command", () =>
    Effect.gen(function* () {
      const config = yield* tempDir("svc-cli-config-")
      const [helpRun, payRun] = yield* Effect.all([svc(["--help"], { config }), svc(["pay", "--help"], { config })], {
        concurrency: "unbounded"
      })
      const help = ok(helpRun).stdout
      for (const command of [
        "login",
        "logout",
        "whoami",
        "teams",
        "users",
        "members",
        "payments",
        "pay",
        "pay-instant",
        "balance",
        "invites",
        "webhooks",
        "listen"
      ]) {
        assert.match(help, new RegExp(`\\n  ${command} +\\S`), command)
      }
      const pay = ok(payRun).stdout
      for (const flag of ["--to", "--csv", "--later", "--at", "--yes", "--batch-size"]) assert.include(pay, flag)
    }).pipe(Effect.scoped)
  )
})
