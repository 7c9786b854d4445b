/**
 * The viem public client the EVM adapter reads and sends through.
 */
import { createPublicClient, defineChain, fallback, http, type PublicClient, type Transport } from "viem"

/** How long one JSON-RPC call may take before it counts as failed (ms): a hung node must not hold a request. */
export const defaultRpcTimeoutMillis = 3_000

/** How many times a failed call is tried again: with the timeout, a dead or hung node answers within seconds. */
export const defaultRpcRetries = 1

/**
 * How often the endpoints of a list are asked whether they answer (`net_listening`), so calls go first to the ones
 * that do: a hung endpoint costs at most one call's timeout per call until the next ranking moves it back.
 */
export const rpcRankIntervalMillis = 2_000

/** How the client talks to the node. */
export interface ChainClientOptions {
  /** One JSON-RPC URL, or several separated by commas (failover, `rpcUrlsOf`). */
  readonly rpcUrl: string
  readonly chainId: number
  readonly pollingInterval?: number
  /** Per call, default `defaultRpcTimeoutMillis`. */
  readonly rpcTimeoutMillis?: number
  /** Default `defaultRpcRetries`. */
  readonly rpcRetries?: number
}

/** The endpoints of an `RPC_URL`: one URL, or several separated by commas (blanks around them are ignored). */
export const rpcUrlsOf = (rpcUrl: string): ReadonlyArray<string> =>
  rpcUrl
    .split(",")
    .map((url) => url.trim())
    .filter((url) => url.length > 0)

/**
 * One endpoint: plain `http`. Several: viem's `fallback`, which sends each call to the best-ranked endpoint and moves
 * to the next when one fails to answer (refused, timed out, a 5xx); an answer that is a revert is final, never
 * retried elsewhere. The ranking (`rank`) pings every endpoint every `rpcRankIntervalMillis` and puts the ones that
 * answer, fastest first, ahead of the ones that do not (docs/operations.md, "Several RPC endpoints").
 */
const transportOf = (options: ChainClientOptions): Transport => {
  const urls = rpcUrlsOf(options.rpcUrl)
  const timeout = options.rpcTimeoutMillis ?? defaultRpcTimeoutMillis
  const retryCount = options.rpcRetries ?? defaultRpcRetries
  if (urls.length <= 1) return http(urls[0] ?? options.rpcUrl, { timeout, retryCount, retryDelay: 100 })
  return fallback(
    urls.map((url) => http(url, { timeout, retryCount: 0 })),
    { retryCount, retryDelay: 100, rank: { interval: rpcRankIntervalMillis, timeout: Math.min(timeout, 1_000) } }
  )
}

/**
 * A public client for `rpcUrl`. Poll every 10 ms on a local node (anvil mines at once), 250 ms on Arbitrum One. Each
 * call is bounded (timeout and retries), so an unreachable node answers `ChainUnreachable` within seconds rather than
 * viem's default of four 10 s attempts (docs/decisions/0037).
 */
export const makeChainClient = (options: ChainClientOptions): PublicClient =>
  createPublicClient({
    chain: defineChain({
      id: options.chainId,
      name: options.chainId === 42161 ? "Arbitrum One" : `chain ${options.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [...rpcUrlsOf(options.rpcUrl)] } }
    }),
    transport: transportOf(options),
    pollingInterval: options.pollingInterval ?? 250
  })
