/**
 * Embedded mode is svc running its own anvil, nothing else (issue 36, item 7; decision 0087). `npm start` in each of
 * the three shapes an operator runs, each rule checked in each:
 * - embedded (no `MONGODB_URI`, no `RPC_URL`): a deposit counts at one block, `/metrics` is open, loopback webhook
 *   URLs are taken, the start-up line names the anvil;
 * - SQLite with `RPC_URL` (single-node production) and MongoDB with `RPC_URL`: a deposit counts at
 *   `CHAIN_CONFIRMATIONS` (2 here: pending at one block and announced only once the next is on top), a start without
 *   `METRICS_TOKEN` or `METRICS_PORT` is refused and `/metrics` then needs the token, loopback webhook URLs (`[::1]`,
 *   `0x7f000001`) are refused without `WEBHOOK_ALLOW_PRIVATE_URLS`, and the start-up line names the chain.
 */
import { execFile } from "node:child_process"
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { startAnvil } from "@svc/adapters/embedded"
import { startTestSmtpServer } from "@svc/adapters/test/TestSmtpServer"
import { testUsdcAbi } from "@svc/contracts"
import { depositEventIdOf } from "@svc/domain/deposit"
import { EventOutbox } from "@svc/domain/event"
import type { DepositId, TeamId } from "@svc/domain/Ids"
import { TeamRepository } from "@svc/domain/team"
import { Context, Effect, Layer, Option } from "effect"
import { type Address, createWalletClient, type Hex, http, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"
import { poll, refusedStart, type Started, startNpm, tempDir } from "../test/NpmStart.ts"
import { call, seedTeam, signIn, startTestServerWith } from "../test/TestServer.ts"
import * as Server from "./Server.ts"

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
type Json = any

const deployScript = resolve(import.meta.dirname, "deploy.ts")
const metricsToken = "m".repeat(40)

/** A JSON-RPC call to `rpcUrl`. */
const rpcAt = (rpcUrl: string) => (method: string, params: ReadonlyArray<unknown>) =>
  Effect.promise(() =>
    fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
    }).then((response) => response.json() as Promise<Json>)
  )

/** An anvil of its own with the contracts placed by `npm run deploy` and one funded relayer key; USDC minted at will. */
const deployedChain = Effect.gen(function* () {
  const anvil = yield* startAnvil()
  const rpc = rpcAt(anvil.rpcUrl)
  const deployerKey = generatePrivateKey()
  const deployer = privateKeyToAccount(deployerKey)
  const relayerKey = generatePrivateKey()
  const relayer = privateKeyToAccount(relayerKey).address
  for (const address of [deployer.address, relayer]) yield* rpc("anvil_setBalance", [address, toHex(10n ** 22n)])
  const keyFile = join(yield* tempDir, "deployer.key")
  writeFileSync(keyFile, `${deployerKey}\n`, { mode: 0o600 })
  const printed = yield* Effect.callback<string, Error>((resume) => {
    const args = [deployScript, "--rpc-url", anvil.rpcUrl, "--key-file", keyFile, "--test-token", "--operator", relayer]
    execFile(process.execPath, args, { timeout: 90_000 }, (error, stdout, stderr) =>
      resume(error === null ? Effect.succeed(stdout) : Effect.fail(new Error(`deploy failed: ${stderr}`)))
    )
  })
  const env = Object.fromEntries(
    printed
      .trim()
      .split("\n")
      .map((line) => line.split("=") as [string, string])
  )
  const wallet = createWalletClient({ account: deployer, transport: http(anvil.rpcUrl) })
  /** The deployer mints `units` of USDC to `to`: one transaction, mined at once in a block of its own. */
  const mint = (to: Address, units: bigint) =>
    Effect.promise(() =>
      wallet.writeContract({
        address: env.TOKEN_ADDRESS as Address,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [to, units],
        chain: null
      })
    )
  return {
    rpc,
    mint,
    env: {
      RPC_URL: anvil.rpcUrl,
      RELAYER_PRIVATE_KEYS: relayerKey,
      CHAIN_ID: env.CHAIN_ID as string,
      FORWARDER_ADDRESS: env.FORWARDER_ADDRESS as string,
      ESCROW_ADDRESS: env.ESCROW_ADDRESS as string,
      TOKEN_ADDRESS: env.TOKEN_ADDRESS as string
    }
  }
})

/** A team's deposits as GET /v2/deposits lists them. */
const depositsOf = (started: Started, token: string, team: string) =>
  Effect.map(
    call({ baseUrl: started.base }, "GET", `/v2/deposits?team_nanoid=${team}`, { token }),
    (answer) => answer.body.data.items as ReadonlyArray<Json>
  )

/** The `deposit.received` event of a deposit in the store's outbox, if it was announced. */
const announced = (storage: Layer.Layer<Server.Storage, Server.StorageError>, deposit: string) =>
  Effect.gen(function* () {
    const outbox = Context.get(yield* Layer.build(storage), EventOutbox)
    return (yield* outbox.findById(depositEventIdOf(deposit as DepositId, "received"))) as Json
  }).pipe(Effect.scoped, Effect.orDie)

const privateUrls = ["https://[::1]:8443/hook", "https://0x7f000001:8443/hook"]

describe("embedded mode is its own anvil, nothing else: each rule in each shape", () => {
  it.live(
    "embedded: a deposit counts at one block, /metrics is open, loopback webhooks are taken, the start names its anvil",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir
        // CHAIN_CONFIRMATIONS is production's: the embedded anvil mines only when asked, so one block counts.
        const started = yield* startNpm({ SVC_DATA_DIR: dir, CHAIN_CONFIRMATIONS: "2" })
        const output = started.output()
        assert.match(
          output,
          /svc API at \S+ .*; embedded SQLite at \S+, anvil at http:\/\/127\.0\.0\.1:\d+ \(chain 42161\)/
        )
        const team = /Demo team: +(te-\S{12})/.exec(output)?.[1] ?? ""
        const key = /Demo admin key: +(0x[0-9a-f]{64})/.exec(output)?.[1] as Hex
        const command = /Send it 250 test USDC \(a deposit\): (curl .+)$/m.exec(output)?.[1] ?? ""
        const token = yield* signIn({ baseUrl: started.base }, privateKeyToAccount(key))
        assert.strictEqual((yield* call({ baseUrl: started.base }, "GET", "/metrics")).status, 200)
        const hook = yield* call({ baseUrl: started.base }, "POST", "/v2/webhooks", {
          token,
          body: { team_nanoid: team, url: "http://127.0.0.1:9/hook", events: ["deposit.received"], name: "local" }
        })
        assert.strictEqual(hook.status, 200, JSON.stringify(hook.body))

        yield* Effect.callback<void>((resume) => void execFile("sh", ["-c", command], () => resume(Effect.void)))
        const deposit = yield* poll(
          "the deposit confirmed",
          Effect.map(depositsOf(started, token, team), (items) =>
            items.find((item) => item.amount_cents === 25_000 && item.state === "confirmed")
          )
        )
        assert.strictEqual(deposit.confirmations, 1)
        const storage = Server.storage({ _tag: "sqlite", filename: join(dir, "svc.db") })
        assert.strictEqual((yield* announced(storage, deposit.deposit_nanoid)).data.confirmations, 1)
      }).pipe(Effect.scoped),
    120_000
  )

  for (const shape of ["sqlite", "mongo"] as const) {
    it.live(
      `${shape} with RPC_URL is production: deposits at CHAIN_CONFIRMATIONS, /metrics behind its token, no loopback webhooks, the start names the chain`,
      () =>
        Effect.gen(function* () {
          const chain = yield* deployedChain
          const dir = yield* tempDir
          const options: Server.StorageOptions =
            shape === "sqlite"
              ? { _tag: "sqlite", filename: join(dir, "svc.db") }
              : { _tag: "mongo", uri: inject("mongoUri"), database: `modes_${randomUUID().replaceAll("-", "")}` }
          const jwtSecret = "j".repeat(48)
          // A company and its admin, seeded in the store (no route creates a company).
          const seeder = yield* startTestServerWith({ storage: options, jwtSecret })
          const seeded = yield* seedTeam(seeder, ["team_admin"])
          const admin = seeded.members[0]?.account ?? privateKeyToAccount(generatePrivateKey())
          const smtp = yield* startTestSmtpServer
          const env: Record<string, string> = {
            ...chain.env,
            ...(shape === "sqlite"
              ? { SVC_DATA_DIR: dir }
              : {
                  MONGODB_URI: options._tag === "mongo" ? options.uri : "",
                  MONGODB_DATABASE: options._tag === "mongo" ? (options.database ?? "") : ""
                }),
            JWT_SECRET: jwtSecret,
            WEBHOOK_SECRET_KEY: "w".repeat(40),
            PUBLIC_BASE_URL: "https://pay.example.com",
            SMTP_URL: smtp.url,
            CHAIN_CONFIRMATIONS: "2",
            RATE_LIMIT_PER_IP: "0",
            RATE_LIMIT_PER_USER: "0"
          }
          const because = shape === "sqlite" ? "RPC_URL" : "MONGODB_URI"

          // /metrics shows the relayer's addresses, balances and nonces: never open by accident.
          const refused = yield* refusedStart(env)
          assert.strictEqual(refused.code, 1, refused.output)
          assert.strictEqual(
            refused.output.trim(),
            `svc cannot start: METRICS_TOKEN or METRICS_PORT is required when ${because} is set: /metrics shows the relayer's addresses, balances and nonces`
          )
          const started = yield* startNpm({ ...env, METRICS_TOKEN: metricsToken })
          const server = { baseUrl: started.base }
          assert.strictEqual((yield* call(server, "GET", "/metrics")).status, 401)
          assert.strictEqual((yield* call(server, "GET", "/metrics", { token: metricsToken })).status, 200)

          // The start-up line names the chain (never its URL, which usually holds a provider's key).
          const storageText = shape === "sqlite" ? `SQLite at ${join(dir, "svc.db")}` : "MongoDB (MONGODB_URI)"
          assert.include(started.output(), `${storageText}`)
          assert.match(
            started.output(),
            /chain 42161 \(Arbitrum One\) through RPC_URL \(1 endpoint\), forwarder 0x[0-9a-fA-F]{40}, 1 relayer key, final at 2 confirmations/
          )
          assert.notMatch(started.output(), /no chain|embedded|Demo admin key/)

          // Loopback in its other spellings is refused: private URLs need WEBHOOK_ALLOW_PRIVATE_URLS.
          const token = yield* signIn(server, admin)
          for (const url of privateUrls) {
            const hook = yield* call(server, "POST", "/v2/webhooks", {
              token,
              body: { team_nanoid: seeded.teamId, url, events: ["deposit.received"], name: "private" }
            })
            assert.strictEqual(hook.status, 400, url)
            assert.strictEqual(hook.body.error_code, "INVALID_WEBHOOK_URL")
            assert.include(hook.body.data, "loopback address: this server accepts https URLs to public addresses only")
          }

          // A team with its account on chain: the node mines a block a second meanwhile (its own interval mining, as
          // a chain does), so its creation gets its 2 confirmations; back to mining each transaction as it comes,
          // so no block is mined after the deposit's but the one this test asks for.
          yield* chain.rpc("evm_setIntervalMining", [1])
          const created = yield* call(server, "POST", "/v2/teams", {
            token,
            body: { name: "Payroll", entity_nanoid: seeded.companyId, admin_wallet: admin.address }
          })
          yield* chain.rpc("evm_setAutomine", [true])
          assert.strictEqual(created.status, 200, JSON.stringify(created.body))
          const team = created.body.data.team_nanoid as TeamId
          const account = yield* Effect.map(
            TeamRepository.use((teams) => teams.findById(team)).pipe(Effect.provide(seeder.context)),
            (found) => Option.getOrThrow(found).svc_account as Address
          )

          // A deposit one block deep is listed pending and not announced; once a block is on top, it is, at 2.
          yield* chain.mint(account, 12_340_000n)
          const pending = yield* poll(
            "the deposit listed",
            Effect.map(depositsOf(started, token, team), (items) => items[0])
          )
          assert.deepStrictEqual([pending.state, pending.confirmations], ["pending", 1])
          const storage = Server.storage(options)
          assert.isUndefined(yield* announced(storage, pending.deposit_nanoid))
          yield* chain.rpc("anvil_mine", ["0x1"])
          const confirmed = yield* poll(
            "the deposit confirmed",
            Effect.map(depositsOf(started, token, team), (items) =>
              items[0]?.state === "confirmed" ? items[0] : undefined
            )
          )
          assert.strictEqual(confirmed.deposit_nanoid, pending.deposit_nanoid)
          const event = yield* announced(storage, pending.deposit_nanoid)
          assert.deepStrictEqual(
            [event.event_type, event.data.status, event.data.confirmations],
            ["deposit.received", "complete", 2]
          )
        }).pipe(Effect.scoped),
      180_000
    )
  }
})
