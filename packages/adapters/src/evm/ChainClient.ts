/**
 * The viem public client the EVM adapter reads and sends through.
 */
import { createPublicClient, defineChain, http, type PublicClient } from "viem"

/** How long one JSON-RPC call may take before it counts as failed (ms): a hung node must not hold a request. */
export const defaultRpcTimeoutMillis = 3_000

/** How many times a failed call is tried again: with the timeout, a dead or hung node answers within seconds. */
export const defaultRpcRetries = 1

/** How the client talks to the node. */
export interface ChainClientOptions {
  readonly rpcUrl: string
  readonly chainId: number
  readonly pollingInterval?: number
  /** Per call, default `defaultRpcTimeoutMillis`. */
  readonly rpcTimeoutMillis?: number
  /** Default `defaultRpcRetries`. */
  readonly rpcRetries?: number
}

/**
 * A public client for `rpcUrl`. Poll every 10 ms on a local node (anvil mines at once), 250 ms on Arbitrum One. Each
 * call is bounded (timeout and retries), so an unreachable node answers `ChainUnavailable` within seconds rather than
 * viem's default of four 10 s attempts (docs/decisions/0037).
 */
export const makeChainClient = (options: ChainClientOptions): PublicClient =>
  createPublicClient({
    chain: defineChain({
      id: options.chainId,
      name: options.chainId === 42161 ? "Arbitrum One" : `chain ${options.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [options.rpcUrl] } }
    }),
    transport: http(options.rpcUrl, {
      timeout: options.rpcTimeoutMillis ?? defaultRpcTimeoutMillis,
      retryCount: options.rpcRetries ?? defaultRpcRetries,
      retryDelay: 100
    }),
    pollingInterval: options.pollingInterval ?? 250
  })
