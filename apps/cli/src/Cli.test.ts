/**
 * `svc` as a person runs it: the real CLI as a child process against `npm start`'s entry point (the embedded stack:
 * SQLite, anvil, the contracts and the demo team in a data directory of its own), over real HTTP. Signs in with a
 * raw key and with an encrypted keystore, lists teams and users, pays two members from a CSV (typed data signed by
 * the CLI, the transfers checked on chain), prints the API's JSON exactly, and fails cleanly on API and argument errors.
 * Webhooks: `svc listen` registers its endpoint, prints the verified deliveries of a payment, forwards them, and removes
 * the endpoint on SIGINT; endpoint management and test deliveries. Invites: created, listed, accepted with the
 * token of the mail the embedded server writes to its log, and revoked.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { assert, layer } from "@effect/vitest"
import { eventually } from "@svc/adapters/test/Eventually"
import { Context, Effect, Layer } from "effect"
import { encryptKeystoreJson } from "ethers"
import { Webhook } from "standardwebhooks"
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
    /** The demo employee's key (Erin; the demo contractor is removed by another test). */
    readonly employeeKey: Hex
    readonly token: Address
    /** A config directory signed in as the demo admin (with `SVC_PRIVATE_KEY`, once for the file). */
    readonly admin: string
    /** Everything the server has printed so far (embedded mode writes invite mails to its log). */
    readonly logs: () => string
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
      Effect.callback<{ child: ChildProcess; output: () => string }, Error>((resume) => {
        const child = spawn(process.execPath, [main], {
          env: { ...cleanEnv(), PORT: "0", SVC_DATA_DIR: dataDir },
          stdio: ["ignore", "pipe", "pipe"],
          detached: true
        })
        let output = ""
        // not a wait: a guard that fails a start that never comes
        const timer = setTimeout(() => resume(Effect.fail(new Error(`not serving in time:\n${output}`))), 90_000)
        const onData = (chunk: Buffer) => {
          output += chunk.toString()
          if (/svc API at http/.test(output)) {
            clearTimeout(timer)
            resume(Effect.succeed({ child, output: () => output }))
          }
        }
        child.stdout.on("data", onData)
        child.stderr.on("data", onData)
      }),
      ({ child }) => Effect.sync(() => killGroup(child))
    )
    const read = (pattern: RegExp) => pattern.exec(started.output())?.[1] ?? ""
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
      employeeKey: state.demo.memberKeys[0] as Hex,
      token: state.suite.token as Address,
      admin,
      logs: started.output
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

/** A request a local receiver got. */
interface Received {
  readonly body: string
  readonly headers: Record<string, string>
}

/** A local HTTP receiver answering 200 to every POST, for the scope; answers its URL and what it got so far. */
const receiver = Effect.acquireRelease(
  Effect.callback<{ url: string; received: Array<Received>; close: () => void }>((resume) => {
    const received: Array<Received> = []
    const server = createServer((request, response) => {
      let body = ""
      request.on("data", (chunk: Buffer) => {
        body += chunk.toString()
      })
      request.on("end", () => {
        const headers: Record<string, string> = {}
        for (const [name, value] of Object.entries(request.headers))
          if (typeof value === "string") headers[name] = value
        received.push({ body, headers })
        response.writeHead(200).end("ok")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}/hook`, received, close: () => server.close() }))
    })
  }),
  ({ close }) => Effect.sync(close)
)

/** Waits (up to a minute on a loaded machine) until `check` answers something: the shared `eventually`. */
const until = <A>(what: string, check: () => A | undefined) =>
  eventually(check, { what, every: "100 millis", timeout: "60 seconds" })

/** The config directory signed in as the demo admin. */
const signedIn = Effect.map(Embedded, ({ admin }) => admin)

/** A config directory of its own signed in as the demo employee (Erin). */
const employeeSignedIn = Effect.gen(function* () {
  const { employeeKey } = yield* Embedded
  const config = yield* tempDir("svc-cli-config-")
  ok(yield* svc(["login"], { config, env: { SVC_PRIVATE_KEY: employeeKey } }))
  return config
})

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

  it.effect("a kept session serves only its wallet: another key signs in as itself and says so; logout --all", () =>
    Effect.gen(function* () {
      const { adminKey, team } = yield* Embedded
      const config = yield* tempDir("svc-cli-config-")
      const admin = privateKeyToAccount(adminKey).address.toLowerCase()
      const inviteeKey = generatePrivateKey()
      const invitee = privateKeyToAccount(inviteeKey).address.toLowerCase()
      ok(yield* svc(["login"], { config, env: { SVC_PRIVATE_KEY: adminKey } }))
      // The invitee signs in last: theirs is the session of shells without a key.
      ok(yield* svc(["login"], { config, env: { SVC_PRIVATE_KEY: inviteeKey } }))
      assert.strictEqual(JSON.parse(ok(yield* svc(["--json", "whoami"], { config })).stdout).wallet, invitee)
      // The admin's shell acts as the admin (its own kept session), not as the invitee.
      const asAdmin = ok(yield* svc(["teams", "list"], { config, env: { SVC_PRIVATE_KEY: adminKey } }))
      assert.include(asAdmin.stdout, team)
      assert.notInclude(asAdmin.stderr, "signing in")
      const whoAdmin = ok(yield* svc(["--json", "whoami"], { config, env: { SVC_PRIVATE_KEY: adminKey } }))
      assert.strictEqual(JSON.parse(whoAdmin.stdout).wallet, admin)
      // A key never signed in with signs in as its wallet, and says so.
      const otherKey = generatePrivateKey()
      const other = privateKeyToAccount(otherKey).address.toLowerCase()
      const asOther = ok(yield* svc(["teams", "list"], { config, env: { SVC_PRIVATE_KEY: otherKey } }))
      assert.include(asOther.stdout, "No teams.")
      assert.include(asOther.stderr, `as ${other} (SVC_PRIVATE_KEY), not as ${invitee} of \`svc login\``)
      // Without a key, still the invitee.
      assert.strictEqual(JSON.parse(ok(yield* svc(["--json", "whoami"], { config })).stdout).wallet, invitee)
      const out = ok(yield* svc(["--json", "logout", "--all"], { config }))
      assert.deepStrictEqual(JSON.parse(out.stdout), { signed_out: true, sessions: 3, url: null })
      assert.isFalse(existsSync(join(config, "svc", "credentials.json")))
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

  it.effect("deposits list shows the demo funding: the demo team's first deposit, read from the chain", () =>
    Effect.gen(function* () {
      const { team } = yield* Embedded
      const config = yield* signedIn
      // The follower reads a pass a second: the funding shows within a few.
      const listed = yield* eventually(
        Effect.map(svc(["--json", "deposits", "list", "--team", team], { config }), (run) =>
          run.stdout.includes("confirmed") ? run : undefined
        ),
        { what: "the funding confirmed", every: "200 millis" }
      )
      // --json is the API's answer, its `data` whole: next_cursor included (null: every page was read).
      const answered = JSON.parse(yield* api(`/v2/deposits?team_nanoid=${team}`, jwtOf(config)))
      const printed = JSON.parse(ok(listed).stdout)
      assert.deepStrictEqual(Object.keys(printed), Object.keys(answered))
      assert.deepStrictEqual(Object.keys(printed.data), ["items", "next_cursor"])
      assert.isNull(printed.data.next_cursor)
      const items: Array<Json> = JSON.parse(ok(listed).stdout).data.items
      assert.deepStrictEqual(
        items.map((item) => [item.amount_cents, item.state, item.kind, item.from]),
        [[10_000_000, "confirmed", "received", "0x0000000000000000000000000000000000000000"]]
      )
      const table = ok(yield* svc(["deposits", "list", "--team", team], { config })).stdout
      assert.include(table, "$100,000.00")
      assert.include(table, items[0].deposit_nanoid)

      // The one command `npm start` prints sends 250 test USDC, and it arrives as the next deposit.
      const { logs } = yield* Embedded
      const command = /Send it 250 test USDC \(a deposit\): (curl .+)$/m.exec(logs())?.[1]
      assert.isDefined(command)
      const sent = yield* Effect.promise(
        () =>
          new Promise<string>((done, fail) =>
            execFile("sh", ["-c", command as string], (error, stdout) => (error ? fail(error) : done(stdout)))
          )
      )
      assert.notInclude(sent, '"error"')
      const after = yield* eventually(
        Effect.map(svc(["--json", "deposits", "list", "--team", team], { config }), (run) => {
          const items: Array<Json> = JSON.parse(ok(run).stdout).data.items
          return items.length >= 2 ? items : undefined
        }),
        { what: "the second deposit listed", every: "200 millis" }
      )
      assert.deepStrictEqual(
        after.map((item) => item.amount_cents),
        [25_000, 10_000_000]
      )
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
      assert.include(later.stdout, "Registered intents for $1.00 to 1 payee\n")

      const payments = ok(yield* svc(["payments", "list", "--team", team, "--state", "complete"], { config })).stdout
      assert.include(payments, "$12.34")
      assert.include(payments, "March, design")
      const balance = ok(yield* svc(["balance", team], { config })).stdout
      assert.match(balance, /USD +\$[\d,]+\.\d{2}/)
    }).pipe(Effect.scoped)
  )

  it.effect("schedules: created from a CSV and signed here, listed, read, forecast, canceled", () =>
    Effect.gen(function* () {
      const { team, adminKey } = yield* Embedded
      const config = yield* signedIn
      const users: Array<Json> = JSON.parse(
        ok(yield* svc(["--json", "users", "list", "--team", team], { config })).stdout
      ).data.users.filter((user: Json) => user.payable)
      const csv = join(config, "salaries.csv")
      writeFileSync(csv, `recipient,amount,description\n${users[0].nanoid},2500,Salary\n${users[1].nanoid},1000\n`)
      const first = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000).toISOString()
      const args = ["--team", team, "--csv", csv, "--interval", "monthly", "--first-pay-at", first, "--count", "2"]
      const created = ok(
        yield* svc(["schedules", "create", ...args, "--yes"], { config, env: { SVC_PRIVATE_KEY: adminKey } })
      )
      assert.include(created.stdout, "$3,500.00")
      const schedule = /Registered pay schedule (ps-\S+), transaction 0x[0-9a-f]{64}/.exec(created.stdout)?.[1] ?? ""
      assert.match(schedule, /^ps-/)
      const listed = ok(yield* svc(["schedules", "list", "--team", team], { config })).stdout
      assert.include(listed, schedule)
      assert.include(listed, "0/2")
      const shown = JSON.parse(ok(yield* svc(["--json", "schedules", "get", schedule], { config })).stdout).data
      assert.deepStrictEqual([shown.state, shown.next_pay_at, shown.amount_cents], ["active", first, 350_000])
      const forecast = JSON.parse(ok(yield* svc(["--json", "cash-requirements", "--team", team], { config })).stdout)
      assert.isTrue(
        forecast.data.obligations.some((o: Json) => o.nanoid === schedule && o.instalment === 0),
        JSON.stringify(forecast.data)
      )
      const canceled = ok(yield* svc(["schedules", "cancel", schedule], { config })).stdout
      assert.include(canceled, `Canceled pay schedule ${schedule}`)
      const bad = yield* svc(["schedules", "get", "us-xxxxxxxxxxxx"], { config })
      assert.strictEqual(bad.code, 1)
      assert.include(bad.stderr, "pay schedule nanoid")
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
          svc(
            [
              "members",
              "settings",
              "set",
              "--team",
              team,
              "--user",
              erin.nanoid,
              "--hourly-rate",
              "85.50",
              "--notifications",
              "false"
            ],
            { config }
          ),
          svc(["members", "summary", "--team", team, "--user", erin.nanoid], { config })
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
          // The older positional form still works.
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
        ok(yield* svc(["members", "remove", "--team", team, "--user", carl.nanoid], { config })).stdout,
        `Removed ${carl.nanoid}`
      )
    }).pipe(Effect.scoped)
  )

  it.effect(
    "svc listen registers its endpoint, prints a payment's verified events, forwards them, removes it on SIGINT",
    () =>
      Effect.gen(function* () {
        const { base, team, adminKey } = yield* Embedded
        const config = yield* signedIn
        const forward = yield* receiver
        const listening = yield* Effect.acquireRelease(
          Effect.sync(() => {
            const child = spawn(
              process.execPath,
              [bin, "--json", "listen", "--team", team, "--forward-to", forward.url],
              {
                env: { ...cleanEnv(), SVC_URL: base, XDG_CONFIG_HOME: config },
                stdio: ["ignore", "pipe", "pipe"],
                detached: true
              }
            )
            const out = { stdout: "", stderr: "", exit: undefined as number | null | undefined }
            child.stdout.on("data", (chunk: Buffer) => {
              out.stdout += chunk.toString()
            })
            child.stderr.on("data", (chunk: Buffer) => {
              out.stderr += chunk.toString()
            })
            child.on("exit", (code) => {
              out.exit = code
            })
            return { child, out }
          }),
          ({ child }) => Effect.sync(() => killGroup(child))
        )
        const { out } = listening
        const webhook = yield* until("listen's endpoint", () => /\(endpoint (wh-\S{12})\)/.exec(out.stderr)?.[1])
        const listed = JSON.parse(ok(yield* svc(["--json", "webhooks", "list", "--team", team], { config })).stdout)
        assert.include(
          listed.data.items.map((w: Json) => w.webhook_nanoid),
          webhook
        )

        const payee: Json = JSON.parse(
          ok(yield* svc(["--json", "users", "list", "--team", team], { config })).stdout
        ).data.users.find((user: Json) => user.payable)
        ok(
          yield* svc(["pay", "--team", team, "--to", `${payee.nanoid}=1.50`, "--yes"], {
            config,
            env: { SVC_PRIVATE_KEY: adminKey }
          })
        )
        const lines = () =>
          out.stdout
            .split("\n")
            .filter((line) => line.trim() !== "")
            .map((line) => JSON.parse(line) as Json)
        const events = yield* until("payment.group.created and payment.sent", () => {
          const seen = lines()
          const types = seen.map((event) => event.event_type)
          return types.includes("payment.group.created") && types.includes("payment.sent") ? seen : undefined
        })
        assert.isTrue(events.every((event) => typeof event.id === "string"))
        assert.notInclude(out.stderr, "rejected")
        // Forwarded as received: the same bodies, with their Standard Webhooks headers.
        const forwardedTypes = () => forward.received.map((r) => JSON.parse(r.body).event_type as string)
        yield* until("the forwarded deliveries", () =>
          forwardedTypes().includes("payment.group.created") && forwardedTypes().includes("payment.sent")
            ? true
            : undefined
        )
        for (const r of forward.received) {
          assert.match(r.headers["webhook-signature"] ?? "", /^v1,/)
          assert.isString(r.headers["webhook-id"])
        }

        listening.child.kill("SIGINT")
        yield* until("listen's exit", () => (out.exit === undefined ? undefined : true))
        assert.include(out.stderr, `Deleted the temporary endpoint ${webhook}`)
        const after = JSON.parse(ok(yield* svc(["--json", "webhooks", "list", "--team", team], { config })).stdout)
        assert.notInclude(
          after.data.items.map((w: Json) => w.webhook_nanoid),
          webhook
        )
      }).pipe(Effect.scoped)
  )

  it.effect("svc webhooks: create, list, get, update, rotate, test (delivered), deliveries, retry, delete", () =>
    Effect.gen(function* () {
      const { team } = yield* Embedded
      const config = yield* signedIn
      const hook = yield* receiver
      const created = JSON.parse(
        ok(
          yield* svc(
            [
              "--json",
              "webhooks",
              "create",
              "--team",
              team,
              "--endpoint",
              hook.url,
              "--events",
              "payment.sent,invite.accepted",
              "--name",
              "Books"
            ],
            { config }
          )
        ).stdout
      ).data
      const id = created.webhook_nanoid as string
      assert.match(created.secret, /^whsec_/)
      const [listRun, getRun] = yield* Effect.all(
        [svc(["webhooks", "list", "--team", team], { config }), svc(["webhooks", "get", id], { config })],
        { concurrency: "unbounded" }
      )
      assert.match(ok(listRun).stdout, new RegExp(`${id} +Books +${hook.url.replace(/[.]/g, "\\.")} +2 +true`))
      assert.match(ok(getRun).stdout, /Events: +payment\.sent, invite\.accepted/)
      // PUT /v2/webhooks/{id}, after the reads above.
      const updated = ok(
        yield* svc(["webhooks", "update", id, "--name", "Bookkeeping", "--description", "ledger"], { config })
      )
      assert.match(updated.stdout, /Name: +Bookkeeping/)
      const rotated = JSON.parse(ok(yield* svc(["--json", "webhooks", "rotate", id], { config })).stdout).data
      assert.notStrictEqual(rotated.secret, created.secret)

      const tested = JSON.parse(
        ok(yield* svc(["--json", "webhooks", "test", id, "--event", "payment.sent"], { config })).stdout
      ).data
      const delivered = yield* until("the test delivery", () => hook.received[0])
      // Signed with the new secret (the previous one signs beside it during the rotation).
      const event = new Webhook(rotated.secret).verify(delivered.body, delivered.headers) as Json
      assert.strictEqual(event.event_type, "payment.sent")
      const log = yield* eventually(
        Effect.map(svc(["--json", "webhooks", "deliveries", id, "--status", "succeeded"], { config }), (run) => {
          const items: Array<Json> = JSON.parse(ok(run).stdout).data.items
          return items.some((item) => item.delivery_nanoid === tested.delivery_nanoid) ? items : undefined
        }),
        { what: "the test delivery succeeded", every: "100 millis", timeout: "60 seconds" }
      )
      assert.strictEqual(log[0].event_type, "payment.sent")
      // The receiver's answer ("ok"): whole in --json, its start in the table's last column.
      assert.deepStrictEqual(
        log[0].attempts.map((a: Json) => [a.status_code, a.response_body, a.response_body_truncated]),
        [[200, "ok", false]]
      )
      const table = ok(yield* svc(["webhooks", "deliveries", id], { config })).stdout
      assert.match(table, / +RESPONSE BODY$/m)
      assert.match(table, new RegExp(`${tested.delivery_nanoid} +payment\\.sent +succeeded +1 +200 +.+ ok$`, "m"))
      const retried = ok(yield* svc(["webhooks", "retry", id, tested.delivery_nanoid], { config })).stdout
      assert.match(retried, new RegExp(`Delivery: +${tested.delivery_nanoid}`))
      yield* until("the retried delivery", () => hook.received[1])

      assert.strictEqual(ok(yield* svc(["webhooks", "delete", id], { config })).stdout.trim(), `Deleted ${id}`)
      const gone = yield* svc(["webhooks", "get", id], { config })
      assert.strictEqual(gone.code, 1)
      assert.include(gone.stderr, "HTTP 404")
    }).pipe(Effect.scoped)
  )

  it.effect(
    "svc invites: a member invite created and listed; accepted with the mailed token by a new wallet; revoke",
    () =>
      Effect.gen(function* () {
        const { team, logs } = yield* Embedded
        const config = yield* signedIn
        const email = `new-${Date.now()}@example.com`
        const other = `other-${Date.now()}@example.com`
        const created = ok(
          yield* svc(["invites", "create", "--team", team, "--email", email, "--email", other], { config })
        ).stdout
        const [, first = "", second = ""] = /Invited 2: (in-\S{12}), (in-\S{12})/.exec(created) ?? []
        assert.match(first, /^in-/)
        assert.match(second, /^in-/)
        const listed = ok(yield* svc(["invites", "list", "--team", team], { config })).stdout
        assert.match(listed, new RegExp(`${first} +${email.replace(/[.]/g, "\\.")}`))
        assert.include(listed, second)

        // Embedded mode writes the mail, link and token, to the server's log.
        const invite = first
        const token = yield* until(
          "the invite mail in the log",
          () => new RegExp(`invite=${invite}&token=([A-Za-z0-9_-]+)`).exec(logs())?.[1]
        )
        const invitee = yield* tempDir("svc-cli-config-")
        ok(yield* svc(["login"], { config: invitee, env: { SVC_PRIVATE_KEY: generatePrivateKey() } }))
        const accepted = ok(
          yield* svc(["invites", "accept", "--invite", invite, "--token", token], { config: invitee })
        )
        assert.match(accepted.stdout, /State: +accepted/)
        const teams = ok(yield* svc(["teams", "list"], { config: invitee })).stdout
        assert.match(teams, new RegExp(`${team} +Demo Team +team_employee`))

        assert.strictEqual(ok(yield* svc(["invites", "revoke", second], { config })).stdout.trim(), `Revoked ${second}`)
        const after = ok(yield* svc(["invites", "list", "--team", team], { config })).stdout
        assert.notInclude(after, first)
        assert.notInclude(after, second)
      }).pipe(Effect.scoped)
  )

  it.effect(
    "svc invoices: the demo employee bills the team; the admin pays it with svc pay --invoice; it reads paid; the PDF",
    () =>
      Effect.gen(function* () {
        const { team, adminKey } = yield* Embedded
        const signing = { SVC_PRIVATE_KEY: adminKey }
        const admin = yield* signedIn
        const erin = yield* employeeSignedIn
        const number = `ERIN-${Date.now()}`
        const created = JSON.parse(
          ok(
            yield* svc(
              [
                "--json",
                "invoices",
                "create",
                "--team",
                team,
                "--number",
                number,
                "--rate",
                "90.00",
                "--entry",
                "2026-03-02 6:20 Ledger migration",
                "--entry",
                "2026-03-03 1:40"
              ],
              { config: erin }
            )
          ).stdout
        ).data
        assert.deepStrictEqual([created.invoice_status, created.amount_cents], ["submitted", 72_000])
        const listed = ok(yield* svc(["invoices", "list", "--team", team, "--status", "submitted"], { config: admin }))
        assert.match(listed.stdout, new RegExp(`${created.nanoid} +${number} +us-\\S{12} +\\$720\\.00`))
        const paid = ok(
          yield* svc(["pay", "--team", team, "--invoice", created.nanoid, "--yes"], { config: admin, env: signing })
        )
        assert.include(paid.stdout, `Invoice ${number} (${created.nanoid})`)
        assert.include(paid.stdout, "Paid $720.00 to 1 payee")
        const shown = ok(yield* svc(["invoices", "get", created.nanoid], { config: erin })).stdout
        assert.match(shown, /Status: +paid/)
        const again = yield* svc(["pay", "--team", team, "--invoice", created.nanoid, "--yes"], {
          config: admin,
          env: signing
        })
        assert.strictEqual(again.code, 1)
        assert.include(again.stderr, `${created.nanoid} is paid: there is nothing to pay`)
        const out = join(yield* tempDir("svc-cli-pdf-"), "invoice.pdf")
        ok(yield* svc(["invoices", "pdf", created.nanoid, "--out", out], { config: erin }))
        assert.strictEqual(readFileSync(out).subarray(0, 5).toString(), "%PDF-")
      }).pipe(Effect.scoped)
  )

  it.effect(
    "svc schedules create --invoice: the admin pays the demo employee's invoice in instalments, shown before signing",
    () =>
      Effect.gen(function* () {
        const { team, adminKey } = yield* Embedded
        const signing = { SVC_PRIVATE_KEY: adminKey }
        const admin = yield* signedIn
        const erin = yield* employeeSignedIn
        const number = `ERIN-S-${Date.now()}`
        const invoice = JSON.parse(
          ok(
            yield* svc(["--json", "invoices", "create", "--team", team, "--number", number, "--amount", "300.00"], {
              config: erin
            })
          ).stdout
        ).data.nanoid as string
        const first = new Date(Math.ceil(Date.now() / 1000) * 1000 + 3_600_000).toISOString()
        const schedule = (invoiceArg: string, count: string) =>
          svc(
            ["schedules", "create", "--team", team, "--invoice", invoiceArg, "--interval", "weekly"].concat([
              "--first-pay-at",
              first,
              "--count",
              count,
              "--yes"
            ]),
            { config: admin, env: signing }
          )
        const [uneven, tooMuch] = yield* Effect.all([schedule(invoice, "7"), schedule(`${invoice}=150`, "3")], {
          concurrency: "unbounded"
        })
        assert.strictEqual(uneven.code, 1)
        assert.include(uneven.stderr, `${invoice} has $300.00 left to pay, which 7 equal instalments cannot pay`)
        assert.strictEqual(tooMuch.code, 1)
        assert.include(tooMuch.stderr, invoice)
        assert.include(tooMuch.stderr, "INVOICE_NOT_PAYABLE")
        const created = ok(yield* schedule(invoice, "3"))
        assert.match(created.stdout, new RegExp(`us-\\S{12} +\\$100\\.00 +Invoice ${number} \\(${invoice}\\)`))
        assert.match(created.stdout, /Each instalment: +\$100\.00/)
        assert.match(created.stdout, /Total: +\$300\.00/)
        const id = /Registered pay schedule (ps-\S+), transaction 0x[0-9a-f]{64}/.exec(created.stdout)?.[1] ?? ""
        const recorded = JSON.parse(ok(yield* svc(["--json", "schedules", "get", id], { config: admin })).stdout).data
        assert.deepStrictEqual(
          recorded.recipients.map((r: Json) => [r.invoice_nanoid, r.amount_cents, r.invoice_description.split(":")[0]]),
          [[invoice, 10_000, `Invoice ${number}`]]
        )
        assert.include(ok(yield* svc(["schedules", "get", id], { config: admin })).stdout, invoice)
        // Held by the schedule: shown so, and refused here before anything is issued to sign.
        const held = ok(yield* svc(["invoices", "get", invoice], { config: admin })).stdout
        assert.match(held, new RegExp(`Being paid by: +pay schedule ${id}`))
        const again = yield* schedule(invoice, "3")
        assert.strictEqual(again.code, 1)
        assert.include(again.stderr, `${invoice} is being paid by pay schedule ${id}`)
        ok(yield* svc(["schedules", "cancel", id], { config: admin }))
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
      // A missing webhook endpoint: the contract's 404, cleanly.
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

  it.effect(
    "members block and unblock; me payout-address set (signed here by the wallet and the address) and show",
    () =>
      Effect.gen(function* () {
        const { team } = yield* Embedded
        const config = yield* signedIn
        const users: Array<Json> = JSON.parse(
          ok(yield* svc(["--json", "users", "list", "--team", team], { config })).stdout
        ).data.users
        const erin = users.find((u) => u.email === "erin@demo.example")
        const member = ["--team", team, "--user", erin.nanoid]
        assert.match(
          ok(yield* svc(["members", "block", ...member, "--reason", "two accounts"], { config })).stdout,
          new RegExp(`^Blocked ${erin.nanoid} in ${team} since `)
        )
        const listed: Array<Json> = JSON.parse(
          ok(yield* svc(["--json", "users", "list", "--team", team], { config })).stdout
        ).data.users
        assert.deepInclude(
          listed.find((u) => u.nanoid === erin.nanoid),
          { blocked: true, payable: false }
        )
        assert.include(ok(yield* svc(["members", "unblock", ...member], { config })).stdout, `Unblocked ${erin.nanoid}`)

        const me = yield* tempDir("svc-cli-config-")
        const [walletKey, payoutKey] = [generatePrivateKey(), generatePrivateKey()]
        const payout = privateKeyToAccount(payoutKey).address
        const env = { SVC_PRIVATE_KEY: walletKey, SVC_PAYOUT_PRIVATE_KEY: payoutKey }
        const refused = yield* svc(["me", "payout-address", "set", "--address", payout], {
          config: me,
          env: { SVC_PRIVATE_KEY: walletKey, SVC_PAYOUT_PRIVATE_KEY: walletKey }
        })
        assert.strictEqual(refused.code, 1)
        assert.include(refused.stderr, "the address key given is not this address's")
        assert.match(
          ok(yield* svc(["me", "payout-address", "set", "--address", payout], { config: me, env })).stdout,
          new RegExp(`Payout address: +${payout.toLowerCase()}`)
        )
        const shown = JSON.parse(ok(yield* svc(["--json", "me", "payout-address", "show"], { config: me, env })).stdout)
        assert.deepInclude(shown.data, { address: payout.toLowerCase(), paid_to: payout.toLowerCase() })
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
        "me",
        "payments",
        "pay",
        "pay-instant",
        "balance",
        "invites",
        "invoices",
        "webhooks",
        "listen"
      ]) {
        assert.match(help, new RegExp(`\\n  ${command} +\\S`), command)
      }
      const pay = ok(payRun).stdout
      for (const flag of ["--to", "--invoice", "--csv", "--later", "--at", "--yes", "--batch-size"]) {
        assert.include(pay, flag)
      }
    }).pipe(Effect.scoped)
  )
})
