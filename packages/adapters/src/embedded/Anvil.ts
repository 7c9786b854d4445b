/**
 * The embedded EVM node (anvil), as a scoped resource.
 */
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { Effect, type Scope } from "effect"
import { AnvilStateError, loadableState } from "./AnvilState.ts"
import { type EmbeddedStartError, freePort, pollUntil, retryStart, spawnScoped } from "./ChildProcess.ts"

const platformPackages: Record<string, string> = {
  "linux-x64": "@foundry-rs/anvil-linux-amd64",
  "linux-arm64": "@foundry-rs/anvil-linux-arm64",
  "darwin-x64": "@foundry-rs/anvil-darwin-amd64",
  "darwin-arm64": "@foundry-rs/anvil-darwin-arm64"
}

/** Where the anvil binary is: `ANVIL_BIN`, else the platform package that `@foundry-rs/anvil` pins. */
export const anvilBinary = (): string => {
  if (process.env.ANVIL_BIN) return process.env.ANVIL_BIN
  const platformPackage = platformPackages[`${process.platform}-${process.arch}`]
  try {
    const require = createRequire(import.meta.url)
    const launcher = createRequire(require.resolve("@foundry-rs/anvil/package.json"))
    return join(dirname(launcher.resolve(`${platformPackage}/package.json`)), "bin", "anvil")
  } catch {
    return `<${platformPackage ?? "anvil"} is not installed for ${process.platform}-${process.arch}; set ANVIL_BIN>`
  }
}

/** The chain id of the embedded node: Arbitrum One's, so typed data matches production's shape. */
export const embeddedChainId = 42161

/**
 * How many past blocks' states anvil keeps (`--prune-history`). Each kept state is a whole copy of the chain's state,
 * and that copy holds every block hash mined so far (and EIP-2935's history contract, up to 8,191 slots), so it grows
 * with the chain: anvil's default of 500 states in memory plus 3,600 on disk (`~/.foundry/anvil/tmp`) made its memory
 * grow with the square of the blocks mined (past ~16,000 blocks it grew by several MB a second, even idle; issue
 * 14, decision 0042). We only read the latest state; 32 leaves a margin over the few blocks that can be mined while a call that
 * asked for "latest" runs (anvil answers such a call with an error when its state was pruned meanwhile).
 */
export const anvilStateHistory = 32

/** A running anvil: its JSON-RPC URL. */
export interface Anvil {
  readonly rpcUrl: string
  readonly port: number
  readonly chainId: number
  /** The file its chain is kept in (`startAnvil({ stateFile })`), if any. */
  readonly stateFile?: string | undefined
  /** When the state it loaded from `stateFile` at start was saved (epoch ms); `undefined` when it started empty. */
  readonly savedAt?: number | undefined
  /** Completes when the process exits (`superviseAnvil` restarts it when that was not a stop). */
  readonly exited: Effect.Effect<void>
}

const chainIdOf = async (rpcUrl: string) => {
  const response = await fetch(rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] })
  })
  const body = (await response.json()) as { result?: string }
  return body.result === undefined ? undefined : Number(body.result)
}

/**
 * Starts anvil on a free loopback port (or `port`, e.g. to start it again where it was; chain id 42161 unless told);
 * stops it when the scope closes. With `stateFile`, anvil starts from the chain saved there when there is one
 * (`--load-state`: anvil reads the file itself, so a chain of any size loads); `persistAnvilState` keeps it saved.
 */
export const startAnvil = (
  options: {
    readonly binary?: string
    readonly chainId?: number
    readonly stateFile?: string
    readonly port?: number | undefined
  } = {}
): Effect.Effect<Anvil, EmbeddedStartError | AnvilStateError, Scope.Scope> =>
  Effect.gen(function* () {
    const { stateFile } = options
    const savedAt = stateFile === undefined ? undefined : yield* loadableState(stateFile)
    const chainId = options.chainId ?? embeddedChainId
    const { port, exited } = yield* Effect.gen(function* () {
      const port = options.port ?? (yield* freePort)
      const { exited } = yield* spawnScoped({
        service: "anvil",
        binary: options.binary ?? anvilBinary(),
        args: [
          "--host",
          "127.0.0.1",
          "--port",
          String(port),
          "--chain-id",
          String(chainId),
          "--silent",
          "--prune-history",
          String(anvilStateHistory),
          ...(savedAt !== undefined && stateFile !== undefined ? ["--load-state", stateFile] : [])
        ],
        ready: () => pollUntil(() => chainIdOf(`http://127.0.0.1:${port}`)),
        // A large chain takes anvil a while to read.
        readyTimeoutMs: 120_000
      })
      return { port, exited }
    }).pipe(
      retryStart,
      // anvil exits at once when it cannot read the file: say so, naming it, rather than "anvil stopped".
      Effect.mapError((error) =>
        savedAt !== undefined && stateFile !== undefined && error.reason === "exited"
          ? new AnvilStateError({
              file: stateFile,
              message: `anvil could not load the saved chain: ${error.message.slice(-400)}`
            })
          : error
      )
    )
    const rpcUrl = `http://127.0.0.1:${port}`
    return { rpcUrl, port, chainId, stateFile, savedAt, exited }
  })
