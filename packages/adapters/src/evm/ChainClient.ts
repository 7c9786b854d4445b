/**
 * The viem public client the EVM adapter reads and sends through.
 */
import { createPublicClient, defineChain, http, type PublicClient } from "viem"

/** A public client for `rpcUrl`. Poll every 10 ms on a local node (anvil mines at once), 250 ms on Arbitrum One. */
export const makeChainClient = (options: {
  readonly rpcUrl: string
  readonly chainId: number
  readonly pollingInterval?: number
}): PublicClient =>
  createPublicClient({
    chain: defineChain({
      id: options.chainId,
      name: options.chainId === 42161 ? "Arbitrum One" : `chain ${options.chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [options.rpcUrl] } }
    }),
    transport: http(options.rpcUrl),
    pollingInterval: options.pollingInterval ?? 250
  })
