/**
 * The chain of embedded mode (`npm start`) and tests: a fresh suite on a local anvil, with a faucet.
 */
import { ChainGateway, type ChainUnreachable, type SendError, TransactionJournal } from "@svc/domain/chain"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { type Address, createTestClient, type Hex, http } from "viem"
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts"
import { makeChainClient } from "./ChainClient.ts"
import { readError } from "./ChainRevert.ts"
import { type ContractsVersionMismatch, checkSuite } from "./ContractsVersion.ts"
import { makeRelayer, type RelayerOptions } from "./Relayer.ts"
import type { BatchOptions } from "./RequestBatcher.ts"
import { type DeployedSuite, deploySuite, mintTestUsdc } from "./Suite.ts"
import { make } from "./ViemChainGateway.ts"

/** What only a local chain offers: the deployed suite, test USDC and gas for anyone (never in production). */
export class EmbeddedChain extends Context.Service<
  EmbeddedChain,
  {
    readonly suite: DeployedSuite
    /** The relayer's first key: the suite's deployer and admin, and the token's owner. */
    readonly relayer: Address
    /** Every key of the relayer (each an operator of the suite). */
    readonly relayers: ReadonlyArray<Address>
    /** Mints test USDC (6 decimals) to `to`. */
    readonly mint: (to: Address, amount: bigint) => Effect.Effect<Hex, SendError>
    /** Sets the ether balance of `to` (anvil's `anvil_setBalance`), e.g. for a wallet that sends its own transactions. */
    readonly setEtherBalance: (to: Address, wei: bigint) => Effect.Effect<void, ChainUnreachable>
    /** Gives the next block this timestamp (unix seconds; anvil's `evm_setNextBlockTimestamp`), e.g. to replay a request. */
    readonly setNextBlockTimestamp: (seconds: bigint) => Effect.Effect<void, ChainUnreachable>
    /**
     * After anvil restarted from a saved state the chain may be behind the relayer: reads its next nonce again, and
     * puts back in flight what the journal saw mined and the chain lacks (docs/decisions/0052).
     */
    readonly forgetNonce: Effect.Effect<void>
    /** Waits (at most `timeoutMillis`) until none of the relayer's transactions is in flight; answers whether. */
    readonly drain: (timeoutMillis: number) => Effect.Effect<boolean>
  }
>()("@svc/adapters/evm/EmbeddedChain") {
  /**
   * Deploys the suite on the anvil at `rpcUrl` from a relayer (two fresh keys unless given, each funded through
   * `anvil_setBalance`), and provides both the `ChainGateway` and the `EmbeddedChain` extras. Given the `suite` of an
   * earlier run whose contracts the chain still holds (a restored chain), it uses that suite instead of deploying.
   */
  static readonly layer = (options: {
    readonly rpcUrl: string
    readonly chainId: number
    readonly relayerKeys?: ReadonlyArray<Redacted.Redacted<Hex>>
    readonly pollingInterval?: number
    readonly suite?: DeployedSuite | undefined
    /** Bounds of each JSON-RPC call (`makeChainClient`'s defaults unless told; tests make them small). */
    readonly rpcTimeoutMillis?: number
    readonly rpcRetries?: number
    /** How the relayer follows its transactions; its journal is the context's `TransactionJournal` when there is one. */
    readonly relayer?: Omit<RelayerOptions, "journal">
    /** How signed requests share transactions (decision 0065). */
    readonly batch?: BatchOptions | undefined
  }): Layer.Layer<EmbeddedChain | ChainGateway, SendError | ContractsVersionMismatch> =>
    Layer.effectContext(
      Effect.gen(function* () {
        const client = makeChainClient({ ...options, pollingInterval: options.pollingInterval ?? 10 })
        const anvil = createTestClient({ mode: "anvil", transport: http(options.rpcUrl) })
        const setEtherBalance = (to: Address, wei: bigint) =>
          Effect.tryPromise({ try: () => anvil.setBalance({ address: to, value: wei }), catch: readError })
        const accounts = (options.relayerKeys?.map(Redacted.value) ?? [generatePrivateKey(), generatePrivateKey()]).map(
          (key) => privateKeyToAccount(key)
        )
        yield* Effect.forEach(accounts, (account) => setEtherBalance(account.address, 10n ** 24n), { discard: true })
        const journal = Option.getOrUndefined(yield* Effect.serviceOption(TransactionJournal))
        const relayer = yield* makeRelayer(client, accounts, { ...options.relayer, journal })
        const deployed =
          options.suite === undefined
            ? undefined
            : yield* Effect.tryPromise({
                try: () => client.getCode({ address: options.suite?.forwarder as Address }),
                catch: readError
              })
        const suite =
          options.suite !== undefined && deployed !== undefined && deployed !== "0x"
            ? options.suite
            : yield* deploySuite(client, relayer)
        yield* checkSuite(
          client,
          suite,
          relayer.addresses,
          "the saved chain was made by an older svc; move SVC_DATA_DIR away to start with a fresh one"
        )
        const gateway = yield* make(client, relayer, suite, { batch: options.batch })
        const embedded = EmbeddedChain.of({
          suite,
          relayer: relayer.address,
          relayers: relayer.addresses,
          mint: (to, amount) => mintTestUsdc(client, relayer, suite.token, to, amount, suite.tokenOwner),
          setEtherBalance,
          setNextBlockTimestamp: (seconds) =>
            Effect.tryPromise({ try: () => anvil.setNextBlockTimestamp({ timestamp: seconds }), catch: readError }),
          forgetNonce: relayer.forgetNonce,
          drain: relayer.drain
        })
        return Context.make(EmbeddedChain, embedded).pipe(Context.add(ChainGateway, gateway))
      })
    )
}
