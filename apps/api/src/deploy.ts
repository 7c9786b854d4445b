/**
 * `npm run deploy -- --rpc-url URL --key-file FILE`: places svc's settlement contracts on a chain, or finds them
 * there, and prints the environment lines the API needs (docs/operations.md, "Deploying to a real chain").
 *
 * The key file holds the deploying account's private key (0x + 64 hex digits; keep it 0600). That account administers
 * the escrow and the forwarder, and makes each `--operator` (the addresses of the relayer keys the API runs with,
 * `RELAYER_PRIVATE_KEYS`; default the deploying account itself) their operator: the keys that release e-mail claims
 * and end a removed member's authority (decision 0060). Addresses are deterministic (CREATE2): a second run with the
 * same key finds the same contracts, checks they are this version, and sends only the operators it must add. Progress
 * goes to stderr; stdout holds only the lines to set, so `npm run -s deploy -- … >> .env` works.
 */
import { readFileSync } from "node:fs"
import { parseArgs } from "node:util"
import { arbitrumOneUsdc, deployOrFind, makeChainClient, makeRelayer } from "@svc/adapters/evm"
import { Effect } from "effect"
import type { Address, Hex } from "viem"
import { privateKeyToAccount } from "viem/accounts"

const usage = `usage: npm run deploy -- --rpc-url URL --key-file FILE [--operator ADDRESS ...]
                      [--token ADDRESS | --test-token]

  --rpc-url URL        the chain's JSON-RPC endpoint (default: RPC_URL)
  --key-file FILE      a file holding the deploying account's private key (0x + 64 hex digits)
  --operator ADDR      a relayer key's address, made an operator (repeat it for each key; default: the deploying
                       account): it releases e-mail claims and ends removed members' authority
  --token ADDR         the settlement token (default: Arbitrum One's USDC on chain 42161)
  --test-token         deploy a test USDC owned by the deploying account instead (test chains only)`

const fail = (message: string, code = 1): never => {
  console.error(`svc deploy: ${message}`)
  process.exit(code)
}

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        "rpc-url": { type: "string" },
        "key-file": { type: "string" },
        operator: { type: "string", multiple: true },
        token: { type: "string" },
        "test-token": { type: "boolean" },
        help: { type: "boolean", short: "h" }
      }
    })
  } catch (error) {
    return fail(`${error instanceof Error ? error.message : String(error)}\n${usage}`, 2)
  }
})()
if (values.help) {
  console.log(usage)
  process.exit(0)
}
const rpcUrl = values["rpc-url"] ?? process.env.RPC_URL ?? fail(`--rpc-url (or RPC_URL) is required\n${usage}`, 2)
const keyFile = values["key-file"] ?? fail(`--key-file is required\n${usage}`, 2)
const isAddress = (value: string | undefined, flag: string): Address | undefined => {
  if (value === undefined) return undefined
  return /^0x[0-9a-fA-F]{40}$/.test(value)
    ? (value as Address)
    : fail(`${flag} must be an address (0x + 40 hex digits)`, 2)
}
if (values.token !== undefined && values["test-token"]) fail("give --token or --test-token, not both", 2)

const key = (() => {
  try {
    return readFileSync(keyFile, "utf8").trim()
  } catch (error) {
    return fail(`cannot read the key file ${keyFile}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
  }
})()
// The key's text is never echoed, whatever is wrong with it.
if (!/^(0x)?[0-9a-fA-F]{64}$/.test(key))
  fail(`the key file ${keyFile} does not hold a private key (0x + 64 hex digits)`)
const account = privateKeyToAccount((key.startsWith("0x") ? key : `0x${key}`) as Hex)

const program = Effect.gen(function* () {
  const probe = makeChainClient({ rpcUrl, chainId: 1 })
  const chainId = yield* Effect.tryPromise(() => probe.getChainId())
  const token =
    isAddress(values.token, "--token") ?? (chainId === 42161 && !values["test-token"] ? arbitrumOneUsdc : undefined)
  if (token === undefined && !values["test-token"]) {
    return fail(`chain ${chainId} has no default token: give --token ADDRESS, or --test-token on a test chain`, 2)
  }
  const client = makeChainClient({ rpcUrl, chainId })
  const relayer = yield* makeRelayer(client, account)
  console.error(`deploying from ${account.address} on chain ${chainId}`)
  const operators = (values.operator ?? [account.address]).map((value) => isAddress(value, "--operator") as Address)
  const deployment = yield* deployOrFind(client, relayer, {
    operators,
    testTokenOwner: values["test-token"] ? account.address : undefined
  })
  const said = (name: string, placed: { address: Address; deployed: boolean }) =>
    console.error(`${name}: ${placed.address} (${placed.deployed ? "deployed" : "found, this version"})`)
  said("escrow", deployment.escrow)
  said("forwarder", deployment.forwarder)
  if (deployment.token !== undefined) said("test token", deployment.token)
  console.error(
    `operators: ${operators.join(", ")}${deployment.operatorsAdded.length === 0 ? " (already)" : ` (added ${deployment.operatorsAdded.length})`}`
  )
  if (!deployment.deterministic)
    console.error("the chain has no CREATE2 deployer: these addresses are not deterministic")
  console.log(
    [
      `CHAIN_ID=${chainId}`,
      `FORWARDER_ADDRESS=${deployment.forwarder.address}`,
      `ESCROW_ADDRESS=${deployment.escrow.address}`,
      `TOKEN_ADDRESS=${deployment.token?.address ?? token}`
    ].join("\n")
  )
})

await Effect.runPromise(Effect.scoped(program)).catch((error) => {
  const reason = error?.reason ?? error?.message ?? String(error)
  fail(String(reason).split("\n")[0] ?? "failed")
})
process.exit(0)
