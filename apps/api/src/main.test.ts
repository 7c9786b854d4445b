import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { connect } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { privateKeyToAccount } from "viem/accounts"

const main = resolve(import.meta.dirname, "main.ts")

interface Started {
  readonly child: ChildProcess
  readonly output: () => string
  readonly base: string
  readonly database: string
  readonly rpcUrl: string
}

// The embedded defaults: none of the production settings a developer's shell may carry.
const productionSettings = [
  "MONGODB_URI",
  "MONGODB_DATABASE",
  "JWT_SECRET",
  "PUBLIC_BASE_URL",
  "RPC_URL",
  "CHAIN_ID",
  "RELAYER_PRIVATE_KEY",
  "WEBHOOK_SECRET_KEY",
  "WEBHOOK_ALLOW_PRIVATE_URLS"
]
const embeddedEnv = (dataDir: string) => {
  const env: Record<string, string | undefined> = { ...process.env, PORT: "0", SVC_DATA_DIR: dataDir }
  for (const name of productionSettings) delete env[name]
  return env
}

/**
 * `npm start`'s entry point as a real process on a free port with its data in `dataDir`, resolved once it serves
 * (under the test timeout).
 */
const spawnStart = (dataDir: string) =>
  Effect.callback<Started, Error>((resume) => {
    const child = spawn(process.execPath, [main], { env: embeddedEnv(dataDir), stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      resume(Effect.fail(new Error(`not serving in time:\n${output}`)))
    }, 45_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const base = /svc API at (http:\/\/\S+)/.exec(output)?.[1]
      const database = /embedded SQLite at (\S+),/.exec(output)?.[1]
      const rpcUrl = /anvil at (http:\/\/\S+)/.exec(output)?.[1]
      if (base && database && rpcUrl) {
        clearTimeout(timer)
        resume(Effect.succeed({ child, output: () => output, base, database, rpcUrl }))
      }
    }
    child.stdout.on("data", onData)
    child.stderr.on("data", onData)
  })

/** A data directory of its own, removed when the test's scope closes. */
const dataDir = Effect.acquireRelease(
  Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-start-"))),
  (dir) => Effect.sync(() => rmSync(dir, { recursive: true, force: true }))
)

/** The started process, killed when the test's scope closes whatever happened in the test. */
const start = Effect.flatMap(dataDir, (dir) =>
  Effect.acquireRelease(spawnStart(dir), ({ child }) => Effect.sync(() => child.kill("SIGKILL")))
)

const exited = (child: ChildProcess) =>
  Effect.callback<number>((resume) => {
    const started = Date.now()
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.succeed(0))
    child.once("exit", () => resume(Effect.succeed(Date.now() - started)))
  })

/** Whether something accepts TCP connections at `url`. */
const reachable = (url: string) =>
  Effect.callback<boolean>((resume) => {
    const { hostname, port } = new URL(url)
    const socket = connect({ host: hostname, port: Number(port) })
    const done = (alive: boolean) => {
      socket.destroy()
      resume(Effect.succeed(alive))
    }
    socket.once("connect", () => done(true))
    socket.once("error", () => done(false))
  })

describe("npm start", () => {
  it.live("seeds the demo and prints it: the printed admin key signs in and sees the funded team", () =>
    Effect.gen(function* () {
      const { child, output, base, database } = yield* start
      const text = output()
      assert.isTrue(existsSync(database), database)
      const team = /Demo team: +(te-\S{12})/.exec(text)?.[1] ?? ""
      const key = /Demo admin key: +(0x[0-9a-f]{64})/.exec(text)?.[1] ?? ""
      assert.include(text, `Docs:              ${base}/docs`)
      const account = privateKeyToAccount(key as `0x${string}`)
      const siwe = (yield* Effect.promise(() =>
        fetch(`${base}/v2/auth/siwe?wallet=${account.address}`).then((r) => r.json())
      )) as { data: { siwe: string; nonce: string } }
      const sig = yield* Effect.promise(() => account.signMessage({ message: siwe.data.siwe }))
      const verified = (yield* Effect.promise(() =>
        fetch(`${base}/v2/auth/verify`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ message: siwe.data.siwe, sig, nonce: siwe.data.nonce })
        }).then((r) => r.json())
      )) as { data: { jwt: string } }
      const headers = { authorization: `Bearer ${verified.data.jwt}` }
      const view = (yield* Effect.promise(() =>
        fetch(`${base}/v2/teams/${team}`, { headers }).then((r) => r.json())
      )) as {
        data: { balance: string; administrators: ReadonlyArray<{ type: string }> }
      }
      assert.strictEqual(view.data.balance, "10000000")
      assert.strictEqual(view.data.administrators[0]?.type, "team_admin")
      const users = (yield* Effect.promise(() =>
        fetch(`${base}/v2/teams/${team}/users`, { headers }).then((r) => r.json())
      )) as { data: { users: ReadonlyArray<{ payable: boolean }> } }
      assert.strictEqual(users.data.users.filter((u) => u.payable).length, 2)
      child.kill("SIGTERM")
      yield* exited(child)
    }).pipe(Effect.scoped)
  )

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it.live(`serves /health, and on ${signal} exits within seconds leaving no anvil behind`, () =>
      Effect.gen(function* () {
        const { child, base, rpcUrl } = yield* start
        const health = yield* Effect.promise(() => fetch(`${base}/health`))
        assert.strictEqual(health.status, 200)
        child.kill(signal)
        const ms = yield* exited(child)
        assert.isBelow(ms, 10_000)
        // It handled the signal and exited by itself (running its finalizers), rather than being killed by it.
        assert.isNull(child.signalCode)
        assert.isFalse(yield* reachable(rpcUrl))
      }).pipe(Effect.scoped)
    )
  }

  it.live("a start killed with SIGKILL still leaves no anvil behind", () =>
    Effect.gen(function* () {
      const { child, rpcUrl } = yield* start
      child.kill("SIGKILL")
      yield* exited(child)
      // The guards notice the closed pipe and stop their service; give them a moment.
      let alive = true
      for (let i = 0; i < 100 && alive; i++) {
        alive = yield* reachable(rpcUrl)
        if (alive) yield* Effect.sleep(50)
      }
      assert.isFalse(alive)
    }).pipe(Effect.scoped)
  )
})
