/**
 * Test and bench support for settlement across real processes (apps/api/src/Settlement.test.ts,
 * apps/api/bench/settlement-faults.bench.ts): a chain of its own (anvil at 1-second blocks, the suite placed by
 * `npm run deploy` with two relayer keys as operators), a store the processes share (SQLite or MongoDB) with a seeded
 * company, `npm start` processes on it, funded teams, signed payments, and the PUT until it answers 200.
 */
import { execFile, execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { assert } from "@effect/vitest"
import { startAnvil, startJongodb } from "@svc/adapters/embedded"
import { eventually } from "@svc/adapters/test/Eventually"
import { startTestSmtpServer } from "@svc/adapters/test/TestSmtpServer"
import { svcAccountForwarderAbi, testUsdcAbi } from "@svc/contracts"
import { signableOf, type TypedDataBundle } from "@svc/domain/eip712"
import type { TeamId } from "@svc/domain/Ids"
import { Effect, type Scope } from "effect"
import { type Address, createPublicClient, createWalletClient, http, keccak256, type PublicClient, toHex } from "viem"
import { generatePrivateKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"
import type * as Server from "../src/Server.ts"
import { type Started, startNpm, tempDir } from "./NpmStart.ts"
import { addMember, call, seedTeam, signIn as signInAt, startTestServerWith } from "./TestServer.ts"

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON bodies
export type Json = any

export const deployScript = resolve(import.meta.dirname, "..", "src", "deploy.ts")
export const chainId = 42161

/** `npm start` as a real process with `env`, resolved once it serves; its process group killed with the scope. */
export const startApi = startNpm
export type ApiProcess = Started

/** The pids of `pid`'s child processes. */
export const childrenOf = (pid: number): ReadonlyArray<string> => {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .trim()
      .split(/\s+/)
  } catch {
    // ps answers 1 when it lists nothing.
    return []
  }
}

/** A JSON request to the process at `base`: its status and its parsed body's fields. */
export const request = (
  base: string,
  method: string,
  path: string,
  token?: string,
  body?: unknown
): Effect.Effect<Json> =>
  Effect.map(call({ baseUrl: base }, method, path, { token, body }), (answer) => ({
    status: answer.status,
    ...(answer.body as object)
  }))

/** Signs in `account` on the process at `base`. */
export const signIn = (base: string, account: PrivateKeyAccount) => signInAt({ baseUrl: base }, account)

/**
 * A separately started anvil mining a block a second, the contracts placed by `npm run deploy` with both relayer keys
 * as operators, and a way to mint its test USDC (the deploying account owns the token).
 */
export const realChain = Effect.gen(function* () {
  const anvil = yield* startAnvil()
  const rpc = (method: string, params: ReadonlyArray<unknown>) =>
    Effect.promise(() =>
      fetch(anvil.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params })
      }).then((response) => response.json())
    )
  const deployerKey = generatePrivateKey()
  const deployer = privateKeyToAccount(deployerKey)
  const relayerKeys = [generatePrivateKey(), generatePrivateKey()] as const
  const relayers = relayerKeys.map((key) => privateKeyToAccount(key).address)
  for (const address of [deployer.address, ...relayers]) {
    yield* rpc("anvil_setBalance", [address, toHex(10n ** 22n)])
  }
  yield* rpc("evm_setAutomine", [false])
  yield* rpc("evm_setIntervalMining", [1])
  const keyFile = join(yield* tempDir, "deployer.key")
  writeFileSync(keyFile, `${deployerKey}\n`, { mode: 0o600 })
  return { anvil, rpc, deployer, relayerKeys, relayers, keyFile }
})

/** Runs `npm run deploy` as an operator would; answers the environment lines it printed. */
export const deploy = (rpcUrl: string, keyFile: string, operators: ReadonlyArray<Address>) =>
  Effect.callback<Record<string, string>, Error>((resume) => {
    execFile(
      process.execPath,
      [
        deployScript,
        "--rpc-url",
        rpcUrl,
        "--key-file",
        keyFile,
        "--test-token",
        ...operators.flatMap((operator) => ["--operator", operator])
      ],
      { timeout: 90_000 },
      (error, stdout, stderr) => {
        if (error !== null) return resume(Effect.fail(new Error(`deploy failed: ${stderr}`)))
        resume(
          Effect.succeed(
            Object.fromEntries(
              stdout
                .trim()
                .split("\n")
                .map((line) => line.split("=") as [string, string])
            )
          )
        )
      }
    )
  })

/** The chain of one run. */
export interface DeployedChain extends Effect.Success<typeof realChain> {
  readonly client: PublicClient
  /** Mints the suite's test USDC to `to` (the deploying account owns the token), once mined. */
  readonly mint: (to: Address, amount: bigint) => Effect.Effect<void>
  /** What a process needs of it: `RPC_URL`, the relayer keys, the chain id and the suite's addresses. */
  readonly env: Record<
    "RPC_URL" | "RELAYER_PRIVATE_KEYS" | "CHAIN_ID" | "FORWARDER_ADDRESS" | "ESCROW_ADDRESS" | "TOKEN_ADDRESS",
    string
  >
}

/** The chain of one run: anvil at 1-second blocks, the deployed suite, funded relayer keys. */
export const deployedChain: Effect.Effect<DeployedChain, Error, Scope.Scope> = Effect.gen(function* () {
  const chain = yield* realChain
  const env = yield* deploy(chain.anvil.rpcUrl, chain.keyFile, chain.relayers)
  const client = createPublicClient({ transport: http(chain.anvil.rpcUrl), pollingInterval: 50 }) as PublicClient
  const wallet = createWalletClient({ account: chain.deployer, transport: http(chain.anvil.rpcUrl) })
  const token = env.TOKEN_ADDRESS as Address
  const mint = (to: Address, amount: bigint) =>
    Effect.promise(async () => {
      const hash = await wallet.writeContract({
        address: token,
        abi: testUsdcAbi,
        functionName: "mint",
        args: [to, amount],
        chain: null
      })
      await client.waitForTransactionReceipt({ hash })
    })
  return {
    ...chain,
    client,
    mint,
    env: {
      RPC_URL: chain.anvil.rpcUrl,
      RELAYER_PRIVATE_KEYS: chain.relayerKeys.join(","),
      CHAIN_ID: env.CHAIN_ID as string,
      FORWARDER_ADDRESS: env.FORWARDER_ADDRESS as string,
      ESCROW_ADDRESS: env.ESCROW_ADDRESS as string,
      TOKEN_ADDRESS: token
    }
  }
})

export type Storage = "sqlite" | "mongo"

/** What processes on `storage` share: the store, its settings, and a seeded company whose team admin may create teams. */
export const sharedStore = (storage: Storage) =>
  Effect.gen(function* () {
    const dir = yield* tempDir
    const database = `settlement_${Date.now()}_${Math.floor(Math.random() * 1e6)}`
    // A jongodb of its own (MONGODB_URI's server when the run is given one): the run's shared jongodb serves every
    // other test file at once, and its transactions run one at a time across all of them.
    const mongoUri =
      storage === "mongo"
        ? (process.env.MONGODB_URI ?? (yield* Effect.map(startJongodb(), (mongo) => mongo.uri).pipe(Effect.orDie)))
        : ""
    const options: Server.StorageOptions =
      storage === "sqlite"
        ? { _tag: "sqlite", filename: join(dir, "svc.db") }
        : { _tag: "mongo", uri: mongoUri, database }
    const smtp = yield* startTestSmtpServer
    const jwtSecret = `${"j".repeat(40)}${database}`
    // Production on either store (decision 0087): the same settings are required.
    const env: Record<string, string> = {
      ...(storage === "sqlite" ? { SVC_DATA_DIR: dir } : { MONGODB_URI: mongoUri, MONGODB_DATABASE: database }),
      JWT_SECRET: jwtSecret,
      PUBLIC_BASE_URL: "https://pay.example.com",
      SMTP_URL: smtp.url,
      WEBHOOK_SECRET_KEY: "w".repeat(40),
      METRICS_TOKEN: "m".repeat(40)
    }
    // The company and its first team are seeded in the store (no route creates a company).
    const seeded = yield* Effect.scoped(
      Effect.flatMap(startTestServerWith({ storage: options, jwtSecret }), (server) => seedTeam(server, ["team_admin"]))
    )
    const admin = seeded.members[0]?.account as PrivateKeyAccount
    return {
      options,
      env: {
        ...env,
        RATE_LIMIT_PER_IP: "0",
        RATE_LIMIT_PER_USER: "0",
        RATE_LIMIT_BYTES_PER_USER: "0",
        // jongodb, standing in for a replica set, commits one (joint) transaction at a time across the processes
        // (decisions 0062, 0097): in a busy test run a request may wait its turn past the default 30 s, and for its
        // relayer key past the default 20 s. The answers are held to the same assertions as on SQLite.
        ...(storage === "mongo" ? { REQUEST_TIMEOUT_MS: "600000", RELAYER_KEY_WAIT_MS: "300000" } : {})
      },
      companyId: seeded.companyId,
      admin
    }
  })

/** A team created over `base` by `admin` (its account created on chain), funded with test USDC. */
export const fundedTeam = (
  chain: DeployedChain,
  base: string,
  token: string,
  companyId: string,
  admin: PrivateKeyAccount,
  name: string
) =>
  Effect.gen(function* () {
    const created = yield* request(base, "POST", "/v2/teams", token, {
      name,
      entity_nanoid: companyId,
      admin_wallet: admin.address
    })
    assert.strictEqual(created.status, 200, JSON.stringify(created))
    const team = created.data.team_nanoid as string
    const account = (yield* Effect.promise(() =>
      chain.client.readContract({
        address: chain.env.FORWARDER_ADDRESS as Address,
        abi: svcAccountForwarderAbi,
        functionName: "accountAddress",
        args: [admin.address, keccak256(toHex(team))]
      })
    )) as Address
    yield* chain.mint(account, 10n ** 12n)
    return { team, account }
  })

/** A payment of `cents` from `team` to `payee`, issued by `base` and signed by its admin: the PUT body. */
export const signedPayment = (
  base: string,
  token: string,
  admin: PrivateKeyAccount,
  team: string,
  payee: string,
  cents: number
) =>
  Effect.gen(function* () {
    const body = {
      from: team,
      to: [{ to: payee, amount_cents: cents, currency_symbol: "USD", invoice_description: "load" }],
      pay_now: true
    }
    const issued = yield* request(base, "POST", "/v2/payments", token, body)
    assert.strictEqual(issued.status, 200, JSON.stringify(issued))
    const bundle = issued.data as TypedDataBundle
    const signature = yield* Effect.promise(() => admin.signTypedData(signableOf(bundle) as never))
    return { ...body, signer: admin.address, typed_data: bundle.typed_data, signature }
  })

/**
 * A new employee (a fresh wallet) in each of `teams`, the member a payment goes to (only employees and contractors are
 * paid, decision 0008): added in the processes' shared store, as the seeding does. Answers their user ids, in order.
 */
export const employeesOf = (store: { readonly options: Server.StorageOptions }, teams: ReadonlyArray<string>) =>
  Effect.scoped(
    Effect.flatMap(startTestServerWith({ storage: store.options }), (server) =>
      Effect.forEach(teams, (team) =>
        addMember(
          team as TeamId,
          privateKeyToAccount(generatePrivateKey()).address,
          "team_employee",
          `payee-${team}@settlement.example`
        ).pipe(Effect.provide(server.context))
      )
    )
  )

/** PUT /v2/payments at `base`, timed. */
export const put = (base: string, token: string, body: unknown) =>
  Effect.gen(function* () {
    const started = Date.now()
    const answer = yield* call({ baseUrl: base }, "PUT", "/v2/payments", { token, body })
    return { status: answer.status, body: answer.body as Json, millis: Date.now() - started }
  })

/** The same PUT again until it answers 200 (its execution recorded): that answer. */
export const untilPaid = (base: string, token: string, body: unknown) =>
  eventually(
    Effect.map(put(base, token, body), (answer) => answer.status === 200 && answer),
    { what: "the PUT's 200", every: "200 millis", timeout: "120 seconds" }
  )
