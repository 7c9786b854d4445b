/**
 * Embedded mode's own parts (DESIGN §4): the data directory's kept state (secrets, relayer keys, the deployed suite,
 * the demo), and the demo seeded and funded on the embedded anvil at each start.
 */
import { randomBytes } from "node:crypto"
import { EmbeddedChain } from "@svc/adapters/evm"
import { testUsdcAbi } from "@svc/contracts"
import { ChainGateway, svcAccountSaltOf } from "@svc/domain/chain"
import type { TeamId } from "@svc/domain/Ids"
import { Context, Effect } from "effect"
import { type Address, encodeFunctionData } from "viem"
import { generatePrivateKey } from "viem/accounts"
import type { AppConfig } from "./AppConfig.ts"
import { planDemo, seedDemo } from "./DemoSeed.ts"
import { type EmbeddedState, readEmbeddedState, writeEmbeddedState } from "./EmbeddedData.ts"
import { logFormat } from "./Logging.ts"

/** The kept state with what a first start makes: secrets and two relayer keys, kept from then on. */
export type StartedState = EmbeddedState & { readonly jwtSecret: string; readonly webhookSecretKey: string }

/** The data directory's kept state, completed with new secrets and keys where it has none (a first start). */
export const embeddedState = (dataDirectory: string) =>
  Effect.map(
    readEmbeddedState(dataDirectory),
    (kept): StartedState => ({
      ...kept,
      jwtSecret: kept?.jwtSecret ?? randomBytes(48).toString("base64url"),
      relayerKeys: kept?.relayerKeys ?? [kept?.relayerKey ?? generatePrivateKey(), generatePrivateKey()],
      webhookSecretKey: kept?.webhookSecretKey ?? randomBytes(32).toString("base64url")
    })
  )

/** The embedded chain's context, as built at start. */
type EmbeddedChainContext = Context.Context<EmbeddedChain | ChainGateway>

/** Creates the team's account on the embedded chain and funds it when it is new (a restored chain keeps its balance). */
const funder = (chain: EmbeddedChainContext) => (owner: Address, team: TeamId) =>
  Effect.gen(function* () {
    const created = yield* Context.get(chain, ChainGateway).createAccount(owner, svcAccountSaltOf(team))
    const usdc = created.transactionHash === undefined ? 0n : 100_000n * 10n ** 6n
    if (usdc > 0n) yield* Context.get(chain, EmbeddedChain).mint(created.account, usdc)
    return { account: created.account, usdc }
  }).pipe(Effect.orDie)

/**
 * One command, as anyone outside would send money: the token's owner mints to the account, through anvil's RPC
 * (impersonated, so no key is printed); the deposit follower then reports it.
 */
const sendUsdcCommandOf = (chain: EmbeddedChainContext, rpcUrl: string) => (account: Address) => {
  const suite = Context.get(chain, EmbeddedChain).suite
  const data = encodeFunctionData({ abi: testUsdcAbi, functionName: "mint", args: [account, 250_000_000n] })
  const batch = [
    { jsonrpc: "2.0", id: 1, method: "anvil_impersonateAccount", params: [suite.tokenOwner] },
    {
      jsonrpc: "2.0",
      id: 2,
      method: "eth_sendTransaction",
      params: [{ from: suite.tokenOwner, to: suite.token, data }]
    }
  ]
  return `curl -s ${rpcUrl} -H 'content-type: application/json' -d '${JSON.stringify(batch)}'`
}

/**
 * The demo (planned at the first start, kept after), seeded into the server's storage and funded on the embedded chain;
 * the state is written back first (the suite the chain runs, the demo, anvil's port), and the chain saved last.
 */
export const seedEmbeddedDemo = (started: {
  readonly config: AppConfig
  readonly state: StartedState
  readonly chain: EmbeddedChainContext | undefined
  readonly rpcUrl: string | undefined
  readonly baseUrl: string
  readonly save: Effect.Effect<void> | undefined
}) =>
  Effect.gen(function* () {
    const { chain, rpcUrl, state } = started
    const plan = state.demo ?? (yield* planDemo)
    yield* writeEmbeddedState(started.config.dataDirectory, {
      ...state,
      suite: chain === undefined ? state.suite : Context.get(chain, EmbeddedChain).suite,
      demo: plan
    })
    // A JSON log stays one object per line: the summary is then a log line too.
    const print = (yield* logFormat) === "json" ? (text: string) => Effect.logInfo(text) : undefined
    yield* seedDemo({
      plan,
      baseUrl: started.baseUrl,
      fund: chain === undefined ? undefined : funder(chain),
      sendUsdcCommand: chain === undefined || rpcUrl === undefined ? undefined : sendUsdcCommandOf(chain, rpcUrl),
      chain: rpcUrl === undefined ? undefined : { rpcUrl, chainId: started.config.chainId },
      print
    })
    yield* started.save ?? Effect.void
  })
