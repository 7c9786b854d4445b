/**
 * `npm start`: the API. With no configuration it runs on the embedded defaults (DESIGN §4): everything is kept in
 * `SVC_DATA_DIR` (default `.data/` in the checkout) — the SQLite database, anvil's chain (saved about every second
 * and on stop), the JWT secret, the relayer key, the deployed contracts, the demo and anvil's port (`ANVIL_PORT`
 * chooses it) — so a restart, even after `kill -9`, finds the same demo, data, balances, valid tokens and chain URL.
 * Ctrl-C or SIGTERM stops the server first (it stops accepting, requests in flight finish within `SHUTDOWN_GRACE_MS`,
 * then every connection is closed), then saves the chain and stops anvil.
 *
 * Production is any start with `MONGODB_URI` or `RPC_URL` (decision 0087: embedded mode is the one that runs its own
 * anvil): `JWT_SECRET` (at least 32 characters), `WEBHOOK_SECRET_KEY` (at least 32 characters; it seals webhook signing
 * secrets), `PUBLIC_BASE_URL`, `SMTP_URL` (invite mails; `MAIL_FROM` the sender) and `METRICS_TOKEN` (GET /metrics
 * behind it) or `METRICS_PORT` (GET /metrics alone on that port) are required; `WEBHOOK_ALLOW_PRIVATE_URLS` (default
 * false; true in embedded mode), `RPC_URL` (one endpoint, or several separated by commas: failover), `CHAIN_ID`,
 * `CHAIN_CONFIRMATIONS`, `PORT`, `HOST`, `INVITE_TTL_DAYS` (default 7);
 * `SETTLEMENT_WAIT_MS` (default 20000: how long PUT /v2/payments waits for its transaction to be final before answering
 * 202 with it in flight); `ISSUED_REQUESTS_MAX_BYTES` (default 8 MiB) and `ISSUED_REQUESTS_MAX_COUNT` (default 1000),
 * what a team may hold in issued payment requests not executed yet;
 * to serve payments, `RELAYER_PRIVATE_KEYS` (keys separated by commas, shared by every process; or one
 * `RELAYER_PRIVATE_KEY`) with `FORWARDER_ADDRESS`, `ESCROW_ADDRESS` and `TOKEN_ADDRESS`.
 *
 * Logs (both modes, Logging.ts): `LOG_FORMAT` (`text` on a terminal and in embedded mode, else `json`), `LOG_LEVEL`.
 *
 * Limits (both modes, docs/operations.md): `RATE_LIMIT_PER_IP` (default 1200 a minute), `RATE_LIMIT_PER_USER` (600),
 * `RATE_LIMIT_BYTES_PER_USER` (32 MiB of request bodies a minute),
 * `RATE_LIMIT_SIGN_IN` (30 a minute per IP; 0 disables any of them), `TRUST_PROXY` (default false: the client IP is
 * the socket's, not `X-Forwarded-For`), `REQUEST_TIMEOUT_MS` (default 30000: a request still running is answered
 * 503), `HEADERS_TIMEOUT_MS` (10000), `SHUTDOWN_GRACE_MS` (5000: on stop, requests in flight get this long before
 * every connection is closed).
 *
 * v1 (both modes, decision 0074): `SERVE_V1=true` serves v1 clients on `/v1` from this process, with
 * `V1_DEPRECATED_SINCE` and `V1_SUNSET` (dates) in the `Deprecation` and `Sunset` headers.
 *
 * Traces (both modes): `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) sends spans over
 * OTLP/HTTP JSON, with `OTEL_EXPORTER_OTLP_HEADERS` and `OTEL_SERVICE_NAME` (default `svc-api`); without it nothing
 * is traced.
 */
import { randomBytes } from "node:crypto"
import { NodeRuntime } from "@effect/platform-node"
import {
  embeddedChainId,
  persistAnvilState,
  portFree,
  startRestartableAnvil,
  superviseAnvil
} from "@svc/adapters/embedded"
import { BatchConfig, EmbeddedChain, ViemChainGateway } from "@svc/adapters/evm"
import { ChainGateway, ChainSupervision } from "@svc/domain/chain"
import { DepositFollower } from "@svc/domain/deposit"
import { IdGenerator } from "@svc/domain/Ids"
import { Executions, IntentRunner, Recovery } from "@svc/domain/payment"
import { Randomness } from "@svc/domain/Randomness"
import { InstalmentRunner } from "@svc/domain/schedule"
import { TeamBalances } from "@svc/domain/team"
import { Cause, Console, Context, Effect, Exit, Layer, Option, Redacted, Runtime } from "effect"
import { HttpServer } from "effect/http"
import { type AppConfig, readAppConfig, refuseVersion, StartRefused } from "./AppConfig.ts"
import { recoverRestoredChain } from "./ChainRecovery.ts"
import { embeddedState, type StartedState, seedEmbeddedDemo } from "./Embedded.ts"
import { chainStateFileOf, databaseFileOf, lockDataDirectory, prepareDataDirectory } from "./EmbeddedData.ts"
import { logging } from "./Logging.ts"
import * as Server from "./Server.ts"
import { serverOptionsOf } from "./ServerOptionsOf.ts"
import { logStarted, stopLine } from "./StartLine.ts"

/**
 * The storage the configuration names, opened before anything else starts (a database from a newer schema is refused
 * here); on SQLite the data directory is made usable first, and locked while this process runs its own anvil.
 */
const openStorage = (config: AppConfig) =>
  Effect.gen(function* () {
    const { dataDirectory, mongoUriConfig } = config
    if (!config.mongo) yield* prepareDataDirectory(dataDirectory)
    const storage = yield* Layer.build(
      Server.storage(
        Option.isSome(mongoUriConfig)
          ? {
              _tag: "mongo",
              uri: Redacted.value(mongoUriConfig.value),
              database: Option.getOrUndefined(config.database),
              timeouts: config.mongoTimeouts
            }
          : { _tag: "sqlite", filename: databaseFileOf(dataDirectory) }
      )
    )
    // One process per data directory while it runs its own anvil: a second start stops here, naming the first, before
    // it starts anvil or writes anything (opening the database, which SQLite shares safely, changes nothing; a refused
    // one leaves no lock file). With a chain of its own (`RPC_URL`) any number of processes share the database: their
    // relayer keys are leased per send (decision 0060), every other claim was already leased in the store.
    if (config.embedded) yield* lockDataDirectory(dataDirectory)
    return storage
  })

/**
 * The port of embedded mode's anvil: `ANVIL_PORT`, else the one this data directory kept, so the chain's RPC URL (and
 * the deposit command printed with it) is the same at every start; `undefined` on a first start (a free one). A port
 * something else holds stops the start with one line naming it.
 */
const anvilPortOf = (config: AppConfig, state: StartedState | undefined) =>
  Effect.gen(function* () {
    const port = Option.getOrUndefined(config.anvilPort) ?? state?.anvilPort
    if (port === undefined || (yield* portFree(port))) return port
    const chosen = Option.isSome(config.anvilPort) ? "ANVIL_PORT" : `kept in ${config.dataDirectory}/embedded.json`
    return yield* new StartRefused({
      message: `the embedded chain's port 127.0.0.1:${port} (${chosen}) is already in use: stop what holds it, or choose another with ANVIL_PORT`
    })
  })

/** Embedded mode's anvil, started on its saved chain (`--load-state`, whatever its size) and saved about every second. */
const startAnvil = (config: AppConfig, state: StartedState | undefined) =>
  Effect.gen(function* () {
    if (!config.embedded) {
      const rpcUrl = Option.isSome(config.rpcUrlConfig) ? Redacted.value(config.rpcUrlConfig.value) : undefined
      return { anvil: undefined, rpcUrl, persisted: undefined }
    }
    const port = yield* anvilPortOf(config, state)
    const anvil = yield* startRestartableAnvil({ stateFile: chainStateFileOf(config.dataDirectory), port })
    // Acquired after anvil, so its last save runs before anvil stops.
    const persisted = yield* persistAnvilState({ anvil })
    return { anvil, rpcUrl: anvil.rpcUrl, persisted }
  })

/**
 * The chain the server pays on, when there is one: embedded mode deploys the contracts on its anvil once (a restored
 * chain keeps them) and supervises it; production serves payments when the chain is configured (RELAYER_PRIVATE_KEY
 * and the addresses, ChainSettings). Both relayers journal into the store (DESIGN §6).
 */
const startChain = (
  config: AppConfig,
  storage: Context.Context<Server.Storage>,
  state: StartedState | undefined,
  started: Effect.Success<ReturnType<typeof startAnvil>>
) =>
  Effect.gen(function* () {
    const { anvil, persisted } = started
    const chain =
      anvil !== undefined
        ? yield* Layer.build(
            EmbeddedChain.layer({
              rpcUrl: anvil.rpcUrl,
              chainId: embeddedChainId,
              relayerKeys: (state?.relayerKeys ?? []).map((key) => Redacted.make(key)),
              suite: state?.suite,
              batch: yield* BatchConfig
            })
          ).pipe(Effect.provide(storage), Effect.catchTag("ContractsVersionMismatch", refuseVersion), Effect.orDie)
        : undefined
    const productionChain =
      !config.embedded && config.relayerConfigured
        ? yield* Layer.build(ViemChainGateway.layerConfig).pipe(
            Effect.provide(storage),
            Effect.catchTag("ContractsVersionMismatch", refuseVersion),
            Effect.orDie
          )
        : undefined
    // A restored chain may be up to a second behind the records: recovery sends again what it lost, before serving.
    const resend = (savedAt: number | undefined) =>
      chain === undefined
        ? Effect.void
        : recoverRestoredChain(savedAt).pipe(
            Effect.provide(
              Layer.mergeAll(
                Layer.succeedContext(storage),
                Layer.succeedContext(chain),
                Executions.layer({ graceMillis: config.shutdownGraceMillis }),
                IdGenerator.layer,
                Randomness.layer
              )
            ),
            Effect.orDie
          )
    yield* resend(persisted?.savedAt)
    // A dead anvil is started again from its saved chain, which may be behind the records: resend, as at start-up.
    // It waits longer after each quick death, and `/ready` says what it is doing meanwhile.
    const supervision =
      anvil !== undefined && persisted !== undefined && chain !== undefined
        ? yield* superviseAnvil({
            anvil,
            persisted,
            onRestart: (savedAt) => Effect.andThen(Context.get(chain, EmbeddedChain).forgetNonce, resend(savedAt))
          })
        : undefined
    const gateway = chain ?? productionChain
    const layer =
      gateway === undefined
        ? undefined
        : Layer.merge(
            Layer.succeed(ChainGateway, Context.get(gateway, ChainGateway)),
            supervision === undefined ? Layer.empty : Layer.succeed(ChainSupervision, supervision)
          )
    return { embedded: chain, layer }
  })

/**
 * With the chain, this process also runs the intent runner, the instalment runner (with the cash requirement watch,
 * decision 0111), recovery (what dead or paused processes left, decision
 * 0093) and the deposit follower (any number of processes may: decisions 0018, 0064). Embedded mode reads deposits
 * from the first block, so the demo funding is the demo team's first deposit; production from `DEPOSITS_FROM_BLOCK`,
 * else from its first start.
 */
const chainWorkers = (config: AppConfig) =>
  Layer.mergeAll(
    IntentRunner.layer(),
    InstalmentRunner.layer(),
    Recovery.layer(),
    DepositFollower.layer({
      confirmations: config.confirmations,
      startBlock: config.embedded ? 0 : Option.getOrUndefined(config.depositsFromBlock)
    })
  )

const main = Effect.gen(function* () {
  // All configuration is read and checked before anything starts.
  const config = yield* readAppConfig
  const stop = yield* stopLine(config)
  const storage = yield* openStorage(config)
  const state = config.embedded ? yield* embeddedState(config.dataDirectory) : undefined
  // The configured secrets, else the data directory's (embedded mode; production requires them).
  const jwtSecret = Option.getOrElse(config.secretConfig, () =>
    Redacted.make(state?.jwtSecret ?? randomBytes(48).toString("base64url"))
  )
  const webhookSecretKey = Option.getOrElse(config.webhookKeyConfig, () =>
    Redacted.make(state?.webhookSecretKey ?? randomBytes(32).toString("base64url"))
  )
  const anvil = yield* startAnvil(config, state)
  const options = serverOptionsOf(config, {
    storage: Layer.succeedContext(storage),
    jwtSecret,
    webhookSecretKey,
    rpcUrl: anvil.rpcUrl
  })
  const chain = yield* startChain(config, storage, state, anvil)
  const server = yield* Layer.build(
    Server.layer({
      ...options,
      chain: chain.layer,
      teamBalances: chain.layer === undefined ? undefined : TeamBalances.layerChain.pipe(Layer.provide(chain.layer))
    })
  )
  if (chain.layer !== undefined)
    yield* Layer.build(chainWorkers(config).pipe(Layer.provide(Layer.succeedContext(server))))
  const address = yield* HttpServer.addressFormattedWith((url) => Effect.succeed(url)).pipe(Effect.provide(server))
  const baseUrl = options.publicBaseUrl ?? address
  if (state !== undefined) {
    yield* seedEmbeddedDemo({
      config,
      state: { ...state, anvilPort: anvil.anvil?.port },
      chain: chain.embedded,
      rpcUrl: anvil.rpcUrl,
      baseUrl,
      save: anvil.persisted?.save
    }).pipe(Effect.provide(server))
  }
  yield* logStarted(config, { baseUrl, rpcUrl: anvil.rpcUrl, restored: anvil.persisted?.savedAt !== undefined })
  yield* stop.served
  yield* stop.stopping
  return yield* Effect.never
}).pipe(
  Effect.scoped,
  // What the operator can fix is said in one line, without a stack trace.
  Effect.catchTags({
    StartRefused: (error) => report(error.message),
    // A variable whose value does not parse (PORT=abc): its name and what was expected, on one line.
    ConfigError: (error) => report(`a setting is not valid: ${error.cause.message.replace(/\s+/g, " ")}`),
    DataDirectoryError: (error) => report(error.message),
    SqliteOpenFailed: (error) => report(error.message),
    SqliteSchemaTooNew: (error) => report(error.message),
    MongoUnreachable: (error) => report(error.message),
    MongoSchemaTooNew: (error) => report(error.message),
    AnvilStateError: (error) => report(`${error.message} (${error.file}); move it away to start with a fresh chain`),
    ServeError: (error) => report(listenRefusal(error.cause))
  })
)

/** Why the server could not listen, as the operator can act on it (a busy port above all). */
const listenRefusal = (cause: unknown) => {
  const { code, address, port } = (cause ?? {}) as { code?: string; address?: string; port?: number }
  const where = address === undefined ? `port ${port ?? "?"}` : `${address}:${port ?? "?"}`
  if (code === "EADDRINUSE")
    return `${where} is already in use (PORT, HOST, METRICS_PORT): stop what holds it, or choose another port`
  if (code === "EACCES") return `${where} may not be opened by this user (PORT, HOST): choose a port above 1023`
  if (code === "EADDRNOTAVAIL") return `${where} is not an address of this machine (HOST)`
  return `the server cannot listen on ${where}: ${cause instanceof Error ? cause.message : String(cause)}`
}

const report = (message: string) =>
  Effect.andThen(
    Console.error(`svc cannot start: ${message}`),
    Effect.sync(() => {
      process.exitCode = 1
    })
  )

// A stop asked for (SIGTERM, Ctrl-C) that ran every finalizer is a clean exit: code 0, not the default 130.
NodeRuntime.runMain(Effect.provide(main, Layer.unwrap(logging)), {
  teardown: (exit, onExit) =>
    Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
})
