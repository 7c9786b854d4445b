/**
 * `npm run deploy` (apps/api/src/deploy.ts) against the run's anvil, as an operator runs it: the contracts are placed
 * at deterministic addresses and the lines to set are printed; a second run finds them and sends nothing; the printed
 * lines configure a working gateway; a bad key file stops with one line that does not echo it.
 */
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { ViemChainGateway } from "@svc/adapters/evm"
import { ChainGateway } from "@svc/domain/chain"
import { Context, Effect, Layer, Redacted } from "effect"
import { type Address, createPublicClient, createTestClient, type Hex, http, keccak256, parseAbi, toHex } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { inject } from "vitest"

const rpcUrl = inject("rpcUrl")
const script = new URL("./deploy.ts", import.meta.url).pathname
const client = createPublicClient({ transport: http(rpcUrl) })

const run = (args: ReadonlyArray<string>) =>
  Effect.callback<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resume) => {
    execFile(process.execPath, [script, ...args], { timeout: 60_000 }, (error, stdout, stderr) =>
      resume(Effect.succeed({ code: error === null ? 0 : Number(error.code ?? 1), stdout, stderr }))
    )
  })

const linesOf = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trim()
      .split("\n")
      .map((line) => line.split("=") as [string, string])
  )

/** A funded deploying key in a key file of a fresh directory. */
const keyFile = Effect.gen(function* () {
  const dir = yield* Effect.acquireRelease(
    Effect.sync(() => mkdtempSync(join(tmpdir(), "svc-deploy-"))),
    (path) => Effect.sync(() => rmSync(path, { recursive: true, force: true }))
  )
  const key = generatePrivateKey()
  const file = join(dir, "deployer.key")
  writeFileSync(file, `${key}\n`, { mode: 0o600 })
  const address = privateKeyToAccount(key).address
  yield* Effect.promise(() =>
    createTestClient({ mode: "anvil", transport: http(rpcUrl) }).setBalance({ address, value: 10n ** 21n })
  )
  return { key, file, address, dir }
})

describe("npm run deploy", () => {
  it.live(
    "places the contracts, then finds them and sends nothing; the printed lines configure a working gateway",
    () =>
      Effect.gen(function* () {
        const deployer = yield* keyFile
        const first = yield* run(["--rpc-url", rpcUrl, "--key-file", deployer.file, "--test-token"])
        assert.strictEqual(first.code, 0, first.stderr)
        assert.match(first.stderr, /forwarder: 0x[0-9a-fA-F]{40} \(deployed\)/)
        const env = linesOf(first.stdout)
        assert.deepStrictEqual(Object.keys(env), ["CHAIN_ID", "FORWARDER_ADDRESS", "ESCROW_ADDRESS", "TOKEN_ADDRESS"])
        assert.strictEqual(env.CHAIN_ID, "42161")
        for (const name of ["FORWARDER_ADDRESS", "ESCROW_ADDRESS", "TOKEN_ADDRESS"] as const) {
          const code = yield* Effect.promise(() => client.getCode({ address: env[name] as Address }))
          assert.isAbove(code?.length ?? 0, 2, name)
        }
        // This contracts version, administered by the deploying account, which is also their operator by default.
        const read = (contract: Address, signature: string, functionName: string, args: ReadonlyArray<unknown> = []) =>
          Effect.promise(() =>
            client.readContract({ address: contract, abi: parseAbi([signature]), functionName, args } as never)
          )
        for (const contract of [env.FORWARDER_ADDRESS, env.ESCROW_ADDRESS] as ReadonlyArray<Address>) {
          assert.strictEqual(
            yield* read(contract, "function CONTRACTS_VERSION() view returns (uint256)", "CONTRACTS_VERSION"),
            5n
          )
          assert.strictEqual(
            yield* read(contract, "function admin() view returns (address)", "admin"),
            deployer.address
          )
          assert.isTrue(
            yield* read(contract, "function isOperator(address) view returns (bool)", "isOperator", [deployer.address])
          )
        }
        assert.match(first.stderr, new RegExp(`operators: ${deployer.address} \\(added 1\\)`))

        const nonce = yield* Effect.promise(() => client.getTransactionCount({ address: deployer.address }))
        const second = yield* run(["--rpc-url", rpcUrl, "--key-file", deployer.file, "--test-token"])
        assert.strictEqual(second.code, 0, second.stderr)
        assert.deepStrictEqual(linesOf(second.stdout), env)
        assert.match(second.stderr, /forwarder: .* \(found, this version\)/)
        assert.strictEqual(
          yield* Effect.promise(() => client.getTransactionCount({ address: deployer.address })),
          nonce
        )
        assert.match(second.stderr, /operators: .* \(already\)/)

        // Another relayer key: the same contracts, and it becomes an operator of both.
        const other = privateKeyToAccount(generatePrivateKey()).address
        const third = yield* run([
          "--rpc-url",
          rpcUrl,
          "--key-file",
          deployer.file,
          "--test-token",
          "--operator",
          deployer.address,
          "--operator",
          other
        ])
        assert.strictEqual(third.code, 0, third.stderr)
        assert.deepStrictEqual(linesOf(third.stdout), env)
        assert.match(third.stderr, /\(added 1\)/)
        for (const contract of [env.FORWARDER_ADDRESS, env.ESCROW_ADDRESS] as ReadonlyArray<Address>) {
          assert.isTrue(
            yield* read(contract, "function isOperator(address) view returns (bool)", "isOperator", [other])
          )
        }

        // The API's production gateway on the printed addresses, with the deploying key as its relayer.
        const gateway = yield* Layer.build(
          ViemChainGateway.layer({
            rpcUrl: Redacted.make(rpcUrl),
            chainId: 42161,
            relayerKeys: [Redacted.make(deployer.key as Hex)],
            addresses: {
              forwarder: env.FORWARDER_ADDRESS as Address,
              escrow: env.ESCROW_ADDRESS as Address,
              token: env.TOKEN_ADDRESS as Address
            },
            pollingInterval: 10
          })
        ).pipe(Effect.map((context) => Context.get(context, ChainGateway)))
        const owner = privateKeyToAccount(generatePrivateKey()).address
        const created = yield* gateway.createAccount(owner, keccak256(toHex("team")))
        assert.strictEqual(yield* gateway.ownerOf(created.account), owner)
      }).pipe(Effect.scoped),
    90_000
  )

  it.live("a bad key file, or no token on a chain without a default, stops with one line", () =>
    Effect.gen(function* () {
      const deployer = yield* keyFile
      const bad = join(deployer.dir, "bad.key")
      writeFileSync(bad, "not-a-key-but-a-secret-anyway\n")
      const refused = yield* run(["--rpc-url", rpcUrl, "--key-file", bad, "--test-token"])
      assert.strictEqual(refused.code, 1)
      assert.strictEqual(refused.stdout, "")
      assert.match(refused.stderr, /^svc deploy: the key file .* does not hold a private key/)
      assert.notInclude(refused.stderr, "secret-anyway")
      const missing = yield* run(["--key-file", deployer.file])
      assert.strictEqual(missing.code, 2)
      assert.match(missing.stderr, /--rpc-url \(or RPC_URL\) is required/)
    }).pipe(Effect.scoped)
  )
})
