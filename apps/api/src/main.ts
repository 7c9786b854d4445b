/**
 * `npm start`: the API. With no configuration it runs on the embedded defaults (DESIGN §4): jongodb and anvil start
 * as scoped resources, a JWT secret is generated for this run, and the demo company and team are seeded and printed.
 * Ctrl-C or SIGTERM stops the server first (in-flight requests finish), then anvil and jongodb.
 *
 * Production: `MONGODB_URI`, `JWT_SECRET` (at least 32 characters), `PUBLIC_BASE_URL`, `RPC_URL`, `CHAIN_ID`, `PORT`,
 * `HOST`; to serve payments, `RELAYER_PRIVATE_KEY` (one per process) with `FORWARDER_ADDRESS`, `ESCROW_ADDRESS` and
 * `TOKEN_ADDRESS`.
 */
import { randomBytes } from "node:crypto"
import { NodeRuntime } from "@effect/platform-node"
import { embeddedChainId, startAnvil, startJongodb } from "@svc/adapters/embedded"
import { EmbeddedChain, ViemChainGateway } from "@svc/adapters/evm"
import { ChainGateway, svcAccountSaltOf } from "@svc/domain/chain"
import type { TeamId } from "@svc/domain/Ids"
import { IntentRunner } from "@svc/domain/payment"
import { TeamBalances } from "@svc/domain/team"
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import { HttpServer } from "effect/http"
import type { Address } from "viem"
import * as ChainSignatureVerifier from "./ChainSignatureVerifier.ts"
import { seedDemo } from "./DemoSeed.ts"
import * as Server from "./Server.ts"

const main = Effect.gen(function* () {
  // All configuration is read and checked before anything starts.
  const port = yield* Config.Int("PORT").pipe(Config.withDefault(3000))
  const host = yield* Config.String("HOST").pipe(Config.withDefault("127.0.0.1"))
  // Redacted: both URIs usually carry credentials.
  const mongoUriConfig = yield* Config.option(Config.Redacted("MONGODB_URI"))
  const database = yield* Config.option(Config.String("MONGODB_DATABASE"))
  const secretConfig = yield* Config.option(Config.Redacted("JWT_SECRET"))
  const publicBaseUrl = yield* Config.option(Config.String("PUBLIC_BASE_URL"))
  const rpcUrlConfig = yield* Config.option(Config.Redacted("RPC_URL"))
  const relayerConfigured = Option.isSome(yield* Config.option(Config.Redacted("RELAYER_PRIVATE_KEY")))
  const embedded = Option.isNone(mongoUriConfig)
  // The embedded chain is our own anvil: never deploy test contracts to a node named by RPC_URL.
  const embeddedChain = embedded && Option.isNone(rpcUrlConfig)
  const chainId = embeddedChain ? embeddedChainId : yield* Config.Int("CHAIN_ID").pipe(Config.withDefault(42161))

  if (!embedded && Option.isNone(secretConfig))
    return yield* Effect.die("JWT_SECRET is required when MONGODB_URI is set")
  if (!embedded && Option.isNone(publicBaseUrl)) {
    return yield* Effect.die("PUBLIC_BASE_URL is required when MONGODB_URI is set: it is the sign-in domain")
  }
  const jwtSecret = Option.getOrElse(secretConfig, () => Redacted.make(randomBytes(48).toString("base64url")))
  if (Redacted.value(jwtSecret).length < 32) return yield* Effect.die("JWT_SECRET must be at least 32 characters")

  const [mongoUri, rpcUrl] = yield* Effect.all(
    [
      Option.isSome(mongoUriConfig)
        ? Effect.succeed(Redacted.value(mongoUriConfig.value))
        : Effect.map(startJongodb(), (mongo) => mongo.uri),
      Option.isSome(rpcUrlConfig)
        ? Effect.succeed<string | undefined>(Redacted.value(rpcUrlConfig.value))
        : embeddedChain
          ? Effect.map(startAnvil(), (anvil): string | undefined => anvil.rpcUrl)
          : Effect.succeed(undefined)
    ],
    { concurrency: 2 }
  )
  // Only embedded addresses are logged: production URIs may carry credentials.
  if (embedded) yield* Effect.logInfo(`embedded jongodb at ${mongoUri}${embeddedChain ? `, anvil at ${rpcUrl}` : ""}`)

  const options: Server.ServerOptions = {
    port,
    host,
    mongoUri,
    database: Option.getOrUndefined(database),
    jwtSecret,
    chainId,
    publicBaseUrl: Option.getOrUndefined(publicBaseUrl),
    // With a node to ask, contract wallets (ERC-1271, ERC-6492) can sign in too.
    signatureVerifier: rpcUrl === undefined ? undefined : ChainSignatureVerifier.layer(rpcUrl)
  }
  // Embedded mode deploys the contracts on anvil: the team balances come from the chain, and the demo is funded.
  const chain =
    embeddedChain && rpcUrl !== undefined
      ? yield* Layer.build(EmbeddedChain.layer({ rpcUrl, chainId: embeddedChainId })).pipe(Effect.orDie)
      : undefined
  // Production serves payments when the chain is configured (RELAYER_PRIVATE_KEY and the addresses, ChainSettings).
  const productionChain =
    !embeddedChain && relayerConfigured
      ? yield* Layer.build(ViemChainGateway.layerConfig).pipe(Effect.orDie)
      : undefined
  const gateway = chain ?? productionChain
  const chainLayer = gateway === undefined ? undefined : Layer.succeed(ChainGateway, Context.get(gateway, ChainGateway))
  const server = yield* Layer.build(
    Server.layer({
      ...options,
      chain: chainLayer,
      teamBalances: chainLayer === undefined ? undefined : TeamBalances.layerChain.pipe(Layer.provide(chainLayer))
    })
  )
  // With the chain, this process also runs the intent runner (any number of processes may: decision 0018).
  if (chainLayer !== undefined) {
    yield* Layer.build(
      IntentRunner.layer({ worker: `api-${process.pid}` }).pipe(Layer.provide(Layer.succeedContext(server)))
    )
  }
  const address = yield* HttpServer.addressFormattedWith((url) => Effect.succeed(url)).pipe(Effect.provide(server))
  const baseUrl = options.publicBaseUrl ?? address
  if (embedded) {
    const fund =
      chain === undefined
        ? undefined
        : (owner: Address, team: TeamId) =>
            Effect.gen(function* () {
              const gateway = Context.get(chain, ChainGateway)
              const { account } = yield* gateway.createAccount(owner, svcAccountSaltOf(team))
              const usdc = 100_000n * 10n ** 6n
              yield* Context.get(chain, EmbeddedChain).mint(account, usdc)
              return { account, usdc }
            }).pipe(Effect.orDie)
    yield* seedDemo({ baseUrl, fund }).pipe(Effect.provide(server))
  }
  yield* Effect.logInfo(`svc API at ${baseUrl} (docs at ${baseUrl}/docs, OpenAPI at ${baseUrl}/openapi.json)`)
  return yield* Effect.never
}).pipe(Effect.scoped)

NodeRuntime.runMain(main)
