/**
 * The EVM adapter's settings, and how production reads them from the environment.
 */
import type { SuiteAddresses } from "@svc/domain/chain"
import { Address as EvmAddress } from "@svc/domain/Evm"
import { Config, ConfigProvider, Effect, Option, Redacted, Schema } from "effect"
import type { Address, Hex } from "viem"
import { defaultRpcRetries, defaultRpcTimeoutMillis, rpcUrlsOf } from "./ChainClient.ts"
import type { RelayerOptions } from "./Relayer.ts"
import type { BatchOptions } from "./RequestBatcher.ts"

/** Arbitrum One's native USDC (Circle), the default settlement token on chain 42161. */
export const arbitrumOneUsdc: Address = "0xaf88d065e77c8cC2239327C5EDb3A432268e5831"

/** What the gateway needs to run: the chain, the relayer's key and the deployed contracts. */
export interface ChainSettings {
  /** Redacted: a provider's URL usually carries its API key. One URL, or several separated by commas (failover). */
  readonly rpcUrl: Redacted.Redacted<string>
  readonly chainId: number
  /** The relayer's keys (`RELAYER_PRIVATE_KEYS`, or the one `RELAYER_PRIVATE_KEY`), shared with other processes. */
  readonly relayerKeys: ReadonlyArray<Redacted.Redacted<Hex>>
  readonly addresses: SuiteAddresses
  /** Receipt and event polling in milliseconds: 10 on anvil, 250 (the default) on Arbitrum One. */
  readonly pollingInterval?: number
  /** How long one JSON-RPC call may take (ms; `RPC_TIMEOUT_MS`, default 3000). */
  readonly rpcTimeoutMillis?: number
  /** How many times a failed call is tried again (`RPC_RETRIES`, default 1). */
  readonly rpcRetries?: number
  /** How the relayer follows its transactions (`MAX_FEE_PER_GAS`, `RELAYER_REPLACE_AFTER_MS`, `RELAYER_KEY_WAIT_MS`,
   * `RELAYER_SEND_LEASE_MS`). */
  readonly relayer?: Omit<RelayerOptions, "journal">
  /** How signed requests share transactions (`BATCH_QUIET_MS`, `BATCH_WAIT_MS`, `BATCH_MAX_REQUESTS`). */
  readonly batch?: BatchOptions
}

/**
 * How signed requests share transactions (decision 0065): a batch closes when no request came for `BATCH_QUIET_MS`
 * (default 10), `BATCH_WAIT_MS` after it opened (default 250), or at `BATCH_MAX_REQUESTS` (default 64; 1 sends each
 * request alone).
 */
export const BatchConfig: Config.Config<BatchOptions> = Config.all({
  quietMillis: Config.Int("BATCH_QUIET_MS").pipe(Config.withDefault(10)),
  waitMillis: Config.Int("BATCH_WAIT_MS").pipe(Config.withDefault(250)),
  maxRequests: Config.Int("BATCH_MAX_REQUESTS").pipe(Config.withDefault(64))
}).pipe(
  Config.mapEffect((batch) =>
    batch.quietMillis >= 1 && batch.waitMillis >= 0 && batch.maxRequests >= 1
      ? Effect.succeed(batch)
      : Effect.fail(
          new Config.ConfigError(
            new ConfigProvider.SourceError({
              message: "BATCH_QUIET_MS and BATCH_MAX_REQUESTS must be at least 1, BATCH_WAIT_MS at least 0"
            })
          )
        )
  )
)

// Checked as an address (0x + 40 hex), so a typo fails at start-up rather than on the first payment.
const address = (name: string) => Config.schema(EvmAddress, name)

/**
 * `CHAIN_CONFIRMATIONS` unless set: 1, the block that holds the transaction. On Arbitrum One the sequencer orders
 * transactions for good as it takes them, and a block reorganises only if the sequencer itself misbehaves; the
 * relayer's monitor still checks the last 64 blocks and sends again anything they lost (docs/decisions/0052).
 */
export const defaultConfirmations = 1

/**
 * `RELAYER_MIN_BALANCE_WEI` unless set: 0.001 ether. A payment through the forwarder costs about 100,000 gas; at
 * Arbitrum One's usual 0.01 gwei that is 10^12 wei, so this is about a thousand payments' worth of gas.
 */
export const defaultMinBalanceWei = 10n ** 15n

/**
 * `RPC_URL`: one http(s) URL, or several separated by commas, tried in turn (`makeChainClient`). Checked at start-up;
 * the error names which entry is wrong by its position, never its text, which usually carries a provider's key.
 */
export const rpcUrlConfig = (name = "RPC_URL"): Config.Config<Redacted.Redacted<string>> =>
  Config.Redacted(name).pipe(
    Config.mapEffect((value) => {
      const urls = rpcUrlsOf(Redacted.value(value))
      const wrong = urls.findIndex((url) => !URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
      if (urls.length > 0 && wrong === -1) return Effect.succeed(value)
      const message =
        urls.length === 0
          ? `${name} names no endpoint`
          : `${name}: entry ${wrong + 1} of ${urls.length} is not an http(s) URL`
      return Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message })))
    })
  )

/**
 * The relayer's keys: `RELAYER_PRIVATE_KEYS` (several, separated by commas; any number of processes may share them,
 * decision 0060), else `RELAYER_PRIVATE_KEY` (one). Each is checked as a private key (0x and 64 hex digits); an error
 * names a wrong one by its position, never its text.
 */
export const relayerKeysConfig: Config.Config<ReadonlyArray<Redacted.Redacted<Hex>>> = Config.Redacted(
  "RELAYER_PRIVATE_KEYS"
).pipe(
  Config.orElse(() => Config.Redacted("RELAYER_PRIVATE_KEY")),
  Config.mapEffect((value) => {
    const keys = Redacted.value(value)
      .split(",")
      .map((key) => key.trim())
      .filter((key) => key !== "")
    const wrong = keys.findIndex((key) => !/^0x[0-9a-fA-F]{64}$/.test(key))
    const duplicated = new Set(keys.map((key) => key.toLowerCase())).size !== keys.length
    if (keys.length > 0 && wrong === -1 && !duplicated) {
      return Effect.succeed(keys.map((key) => Redacted.make(key as Hex)))
    }
    const message =
      keys.length === 0
        ? "RELAYER_PRIVATE_KEYS names no key"
        : wrong !== -1
          ? `relayer key ${wrong + 1} of ${keys.length} is not a private key (0x and 64 hex digits)`
          : "RELAYER_PRIVATE_KEYS names a key twice"
    return Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message })))
  })
)

const tokenAddress = (chainId: number) =>
  chainId === 42161 ? address("TOKEN_ADDRESS").pipe(Config.withDefault(arbitrumOneUsdc)) : address("TOKEN_ADDRESS")

/**
 * Production settings from the environment: `CHAIN_ID` (default 42161), `RPC_URL` (one endpoint or several, comma
 * separated) and `RELAYER_PRIVATE_KEYS` or `RELAYER_PRIVATE_KEY` (all redacted), the relayer's `MAX_FEE_PER_GAS` (wei; the cap of a replacement's
 * fee, default none), `RELAYER_REPLACE_AFTER_MS` (a transaction pending this long is replaced, default 30000),
 * `RELAYER_KEY_WAIT_MS` (how long a transaction waits for its key before the request answers 503, default 20000),
 * `RELAYER_SEND_LEASE_MS` (how long a key's send lease is taken for, renewed before each nonce, default 10000) and
 * `CHAIN_CONFIRMATIONS` (how deep a transaction's block must be before it counts, default 1),
 * `FORWARDER_ADDRESS`, `ESCROW_ADDRESS`, `TOKEN_ADDRESS` (default Arbitrum One's USDC on chain 42161), and the bounds of
 * each JSON-RPC call, `RPC_TIMEOUT_MS` (default 3000) and `RPC_RETRIES` (default 1).
 */
export const ChainSettingsConfig: Config.Config<ChainSettings> = Config.Int("CHAIN_ID").pipe(
  Config.withDefault(42161),
  Config.flatMap((chainId) =>
    Config.all({
      rpcUrl: rpcUrlConfig(),
      relayerKeys: relayerKeysConfig,
      forwarder: address("FORWARDER_ADDRESS"),
      escrow: address("ESCROW_ADDRESS"),
      token: tokenAddress(chainId),
      rpcTimeoutMillis: Config.Int("RPC_TIMEOUT_MS").pipe(Config.withDefault(defaultRpcTimeoutMillis)),
      rpcRetries: Config.Int("RPC_RETRIES").pipe(Config.withDefault(defaultRpcRetries)),
      maxFeePerGas: Config.option(Config.schema(Schema.BigIntFromString, "MAX_FEE_PER_GAS")),
      replaceAfterMillis: Config.Int("RELAYER_REPLACE_AFTER_MS").pipe(Config.withDefault(30_000)),
      keyWaitMillis: Config.Int("RELAYER_KEY_WAIT_MS").pipe(Config.withDefault(20_000)),
      sendLeaseMillis: Config.Int("RELAYER_SEND_LEASE_MS").pipe(Config.withDefault(10_000)),
      confirmations: Config.Int("CHAIN_CONFIRMATIONS").pipe(Config.withDefault(defaultConfirmations)),
      minBalance: Config.schema(Schema.BigIntFromString, "RELAYER_MIN_BALANCE_WEI").pipe(
        Config.withDefault(defaultMinBalanceWei)
      ),
      batch: BatchConfig
    }).pipe(
      Config.map(
        ({
          batch,
          minBalance,
          confirmations,
          escrow,
          forwarder,
          maxFeePerGas,
          relayerKeys,
          replaceAfterMillis,
          keyWaitMillis,
          sendLeaseMillis,
          rpcRetries,
          rpcTimeoutMillis,
          rpcUrl,
          token
        }) => ({
          chainId,
          rpcUrl,
          rpcTimeoutMillis,
          rpcRetries,
          relayer: {
            replaceAfterMillis,
            keyWaitMillis,
            sendLeaseMillis,
            confirmations,
            minBalance,
            maxFeePerGas: Option.getOrUndefined(maxFeePerGas)
          },
          relayerKeys,
          batch,
          addresses: { forwarder, escrow, token }
        })
      )
    )
  )
)
