/**
 * `npm start` keeps everything in `SVC_DATA_DIR` (DESIGN §4, issue 9): a payment made before a restart, a clean one or
 * a `kill -9` of the whole process group, is there after it, with the same balance on chain and in the records, the
 * same demo and admin key, and the JWT issued before still valid. A data directory that cannot be used, or a
 * database from a newer schema, stops the start with a clear message and changes nothing.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { DatabaseSync } from "node:sqlite"
import { assert, describe, it } from "@effect/vitest"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import { Effect } from "effect"
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"

const main = resolve(import.meta.dirname, "main.ts")

// The embedded defaults: none of the production settings a developer's shell may carry.
const productionSettings = [
  "MONGODB_URI",
  "MONGODB_DATABASE",
  "JWT_SECRET",
  "PUBLIC_BASE_URL",
  "RPC_URL",
  "CHAIN_ID",
  "RELAYER_PRIVATE_KEY",
  "SMTP_URL",
  "MAIL_FROM",
  "INVITE_TTL_DAYS"
]
const envFor = (dataDirectory: string) => {
  const env: Record<string, string | undefined> = { ...process.env, PORT: "0", SVC_DATA_DIR: dataDirectory }
  for (const name of productionSettings) delete env[name]
  return env
}

interface Started {
  readonly child: ChildProcess
  readonly base: string
  readonly team: string
  readonly key: `0x${string}`
}

/** `npm start`'s entry point in a process group of its own, resolved once it serves and printed its demo. */
const startIn = (dataDirectory: string) =>
  Effect.acquireRelease(
    Effect.callback<Started, Error>((resume) => {
      const child = spawn(process.execPath, [main], {
        env: envFor(dataDirectory),
        stdio: ["ignore", "pipe", "pipe"],
        detached: true
      })
      let output = ""
      const timer = setTimeout(() => {
        killGroup(child)
        resume(Effect.fail(new Error(`not serving in time:\n${output}`)))
      }, 45_000)
      const onData = (chunk: Buffer) => {
        output += chunk.toString()
        const base = /svc API at (http:\/\/\S+)/.exec(output)?.[1]
        const team = /Demo team: +(te-\S{12})/.exec(output)?.[1]
        const key = /Demo admin key: +(0x[0-9a-f]{64})/.exec(output)?.[1] as `0x${string}` | undefined
        if (base && team && key) {
          clearTimeout(timer)
          resume(Effect.succeed({ child, base, team, key }))
        }
      }
      child.stdout?.on("data", onData)
      child.stderr?.on("data", onData)
    }),
    ({ child }) => Effect.sync(() => killGroup(child))
  )

/** Kills the process and everything it started (anvil included), as `kill -9` of the group would. */
const killGroup = (child: ChildProcess) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  } catch {
    // Already gone.
  }
}

const exited = (child: ChildProcess) =>
  Effect.callback<void>((resume) => {
    if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
    child.once("exit", () => resume(Effect.void))
  })

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
const request = (base: string, method: string, path: string, token?: string, body?: unknown): Effect.Effect<any> =>
  Effect.promise(async () => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/json" })
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: response.status, ...((await response.json()) as object) }
  })

const signIn = (base: string, account: PrivateKeyAccount) =>
  Effect.gen(function* () {
    const challenge = yield* request(base, "GET", `/v2/auth/siwe?wallet=${account.address}`)
    const sig = yield* Effect.promise(() => account.signMessage({ message: challenge.data.siwe }))
    const verified = yield* request(base, "POST", "/v2/auth/verify", undefined, {
      message: challenge.data.siwe,
      sig,
      nonce: challenge.data.nonce
    })
    return verified.data.jwt as string
  })

/** Pays `cents` to the team's first payable member and answers the PUT's status. */
const pay = (started: Started, token: string, cents: number) =>
  Effect.gen(function* () {
    const admin = privateKeyToAccount(started.key)
    const users = yield* request(started.base, "GET", `/v2/teams/${started.team}/users`, token)
    const member = users.data.users.find((u: { payable: boolean }) => u.payable)
    const body = {
      from: started.team,
      to: [{ to: member.nanoid, amount_cents: cents, currency_symbol: "USD", invoice_description: "before restart" }],
      pay_now: true
    }
    const issued = yield* request(started.base, "POST", "/v2/payments", token, body)
    const bundle = issued.data as TypedDataBundle
    const signature = yield* Effect.promise(() => admin.signTypedData(signableOf(bundle) as never))
    const executed = yield* request(started.base, "PUT", "/v2/payments", token, {
      ...body,
      signer: admin.address,
      typed_data: bundle.typed_data,
      signature
    })
    return executed.status as number
  })

/** What the API says of the team: its payments and its balance on chain. */
const stateOf = (started: Started, token: string) =>
  Effect.gen(function* () {
    const payments = yield* request(started.base, "GET", `/v2/payments?team_nanoid=${started.team}`, token)
    const balance = yield* request(started.base, "GET", `/v2/balance?nanoid=${started.team}`, token)
    return {
      payments: (payments.data.items as ReadonlyArray<{ payment: { nanoid: string; amount_cents: number } }>).map(
        (item) => `${item.payment.nanoid}:${item.payment.amount_cents}`
      ),
      balance: balance.data.balances[0].balance_cents as number
    }
  })

const freshDirectory = () => mkdtempSync(join(tmpdir(), "svc-data-"))

describe("npm start keeps its data", () => {
  for (const stop of ["SIGTERM", "kill -9 of the group"] as const) {
    it.live(`after ${stop} and a restart: the same demo, payments, balance and valid JWT`, () =>
      Effect.gen(function* () {
        const directory = freshDirectory()
        const before = yield* Effect.scoped(
          Effect.gen(function* () {
            const started = yield* startIn(directory)
            const token = yield* signIn(started.base, privateKeyToAccount(started.key))
            const opening = yield* stateOf(started, token)
            assert.strictEqual(yield* pay(started, token, 1234), 200)
            const after = yield* stateOf(started, token)
            assert.strictEqual(after.payments.length, opening.payments.length + 1)
            assert.strictEqual(after.balance, opening.balance - 1234)
            // Stopped right after the 200: the chain's last save may predate the payment.
            if (stop === "SIGTERM") started.child.kill("SIGTERM")
            else killGroup(started.child)
            yield* exited(started.child)
            return { started, token, after }
          })
        )
        const restarted = yield* Effect.scoped(
          Effect.gen(function* () {
            const started = yield* startIn(directory)
            return { started, state: yield* stateOf(started, before.token) }
          })
        )
        assert.strictEqual(restarted.started.team, before.started.team)
        assert.strictEqual(restarted.started.key, before.started.key)
        assert.deepStrictEqual(restarted.state, before.after)
      })
    )
  }

  it.live("a data directory that cannot be written stops the start with a message naming it", () =>
    Effect.gen(function* () {
      const file = join(freshDirectory(), "a-file")
      writeFileSync(file, "")
      const child = spawn(process.execPath, [main], {
        env: envFor(join(file, "data")),
        stdio: ["ignore", "pipe", "pipe"]
      })
      let stderr = ""
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      yield* exited(child)
      assert.strictEqual(child.exitCode, 1)
      assert.include(stderr, `svc cannot start: The data directory ${join(file, "data")} (SVC_DATA_DIR) cannot be used`)
      assert.notInclude(stderr, "    at ")
    })
  )

  it.live("a database from a newer schema stops the start and is left as it was", () =>
    Effect.gen(function* () {
      const directory = freshDirectory()
      const database = join(directory, "svc.db")
      const db = new DatabaseSync(database)
      db.exec("PRAGMA user_version = 999")
      db.close()
      const bytes = readFileSync(database)
      const child = spawn(process.execPath, [main], { env: envFor(directory), stdio: ["ignore", "pipe", "pipe"] })
      let stderr = ""
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      yield* exited(child)
      assert.strictEqual(child.exitCode, 1)
      assert.match(stderr, /svc cannot start: .*newer/)
      assert.deepStrictEqual(readFileSync(database), bytes)
      // Nothing else was written beside it.
      assert.deepStrictEqual(
        readdirSync(directory).filter((name) => statSync(join(directory, name)).isFile()),
        ["svc.db"]
      )
    })
  )
})
