/**
 * `npm start`: the API. With no configuration it runs on the embedded defaults (DESIGN §4): everything is kept in
 * `SVC_DATA_DIR` (default `.data/` in the checkout) — the SQLite database, anvil's chain (saved about every second
 * and on stop), the JWT secret, the relayer key, the deployed contracts and the demo — so a restart, even after `kill -9`,
 * finds the same demo, data, balances and valid tokens. Ctrl-C or SIGTERM stops the server first (it stops accepting,
 * requests in flight finish within `SHUTDOWN_GRACE_MS`, then every connection is closed), then saves the chain and
 * stops anvil.
 *
 * Production: `MONGODB_URI`, `JWT_SECRET` (at least 32 characters), `WEBHOOK_SECRET_KEY` (at least 32 characters; it
 * seals webhook signing secrets), `WEBHOOK_ALLOW_PRIVATE_URLS` (default false; true in embedded mode), `METRICS_TOKEN` (GET /metrics behind it) or `METRICS_PORT` (GET /metrics alone on that port), `PUBLIC_BASE_URL`,
 * `RPC_URL` (one endpoint, or several separated by commas: failover), `CHAIN_ID`, `PORT`, `HOST`, `SMTP_URL` (invite mails; `MAIL_FROM` the sender), `INVITE_TTL_DAYS` (default 7);
 * `SETTLEMENT_WAIT_MS` (default 20000: how long PUT /v2/payments waits for its transaction to be final before answering
 * 202 with it in flight); `ISSUED_REQUESTS_MAX_BYTES` (default 8 MiB) and `ISSUED_REQUESTS_MAX_COUNT` (default 1000), what a team may hold in
 * issued payment requests not executed yet;
 * to serve payments, `RELAYER_PRIVATE_KEYS` (keys separated by commas, shared by every process; or one
 * `RELAYER_PRIVATE_KEY`) with `FORWARDER_ADDRESS`, `ESCROW_ADDRESS` and `TOKEN_ADDRESS`.
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
import { randomBytes, randomUUID } from "node:crypto"
import { NodeRuntime } from "@effect/platform-node"
import { embeddedChainId, persistAnvilState, startRestartableAnvil, superviseAnvil } from "@svc/adapters/embedded"
import {
  BatchConfig,
  type ContractsVersionMismatch,
  defaultConfirmations,
  EmbeddedChain,
  rpcUrlConfig as rpcUrlsConfig,
  ViemChainGateway
} from "@svc/adapters/evm"
import { defaultRateLimits, type RateLimitSettings } from "@svc/adapters/http/server"
import { SmtpMailer } from "@svc/adapters/mail"
import { defaultMongoTimeouts } from "@svc/adapters/mongo"
import { testUsdcAbi } from "@svc/contracts"
import { ChainGateway, ChainSupervision, svcAccountSaltOf } from "@svc/domain/chain"
import { DepositFollower } from "@svc/domain/deposit"
import type { TeamId } from "@svc/domain/Ids"
import { AbandonedExecutions, IntentRunner } from "@svc/domain/payment"
import { defaultRetention } from "@svc/domain/retention"
import { TeamBalances } from "@svc/domain/team"
import {
  Cause,
  Config,
  Console,
  Context,
  Duration,
  Effect,
  Exit,
  Layer,
  Logger,
  type LogLevel,
  Option,
  Redacted,
  References,
  Runtime,
  Schema
} from "effect"
import { HttpServer } from "effect/http"
import { type Address, encodeFunctionData } from "viem"
import { generatePrivateKey } from "viem/accounts"
import { resendLostExecutions } from "./ChainRecovery.ts"
import * as ChainSignatureVerifier from "./ChainSignatureVerifier.ts"
import { planDemo, seedDemo } from "./DemoSeed.ts"
import {
  chainStateFileOf,
  databaseFileOf,
  dataDirectoryOf,
  type EmbeddedState,
  lockDataDirectory,
  prepareDataDirectory,
  readEmbeddedState,
  writeEmbeddedState
} from "./EmbeddedData.ts"
import * as Server from "./Server.ts"
import { otlpHeadersOf, tracesUrlOf } from "./Tracing.ts"

/** A start refused for a reason the operator can fix: printed as one line, exit code 1. */
class StartRefused extends Schema.TaggedError<StartRefused>()("StartRefused", { message: Schema.String }) {}

const refuse = (message: string) => Effect.fail(new StartRefused({ message }))

/** A date's time in milliseconds; NaN when it is not one. */
const dateOf = (text: string) => new Date(text).getTime()

/** Contracts of another version (decision 0060): refused, with what to do. */
const refuseVersion = (error: ContractsVersionMismatch) => refuse(error.message)

/** `LOG_FORMAT`: `json` (one object per line; the default in production) or `text` (embedded mode's default). */
const logFormat = Effect.gen(function* () {
  const production = Option.isSome(yield* Config.option(Config.Redacted("MONGODB_URI")))
  return yield* Config.Literals(["json", "text"], "LOG_FORMAT").pipe(
    Config.withDefault(production ? ("json" as const) : ("text" as const))
  )
})

const main = Effect.gen(function* () {
  // All configuration is read and checked before anything starts.
  const port = yield* Config.Int("PORT").pipe(Config.withDefault(3000))
  const host = yield* Config.String("HOST").pipe(Config.withDefault("127.0.0.1"))
  // Redacted: both URIs usually carry credentials.
  const mongoUriConfig = yield* Config.option(Config.Redacted("MONGODB_URI"))
  const database = yield* Config.option(Config.String("MONGODB_DATABASE"))
  // The driver's bounds: a dead database fails a request within seconds, answered 503 (docs/operations.md).
  const mongoTimeouts = {
    serverSelectionMillis: yield* Config.Int("MONGODB_SERVER_SELECTION_TIMEOUT_MS").pipe(
      Config.withDefault(defaultMongoTimeouts.serverSelectionMillis)
    ),
    connectMillis: yield* Config.Int("MONGODB_CONNECT_TIMEOUT_MS").pipe(
      Config.withDefault(defaultMongoTimeouts.connectMillis)
    ),
    socketMillis: yield* Config.Int("MONGODB_SOCKET_TIMEOUT_MS").pipe(
      Config.withDefault(defaultMongoTimeouts.socketMillis)
    )
  }
  const secretConfig = yield* Config.option(Config.Redacted("JWT_SECRET"))
  const webhookKeyConfig = yield* Config.option(Config.Redacted("WEBHOOK_SECRET_KEY"))
  const allowPrivateConfig = yield* Config.option(Config.Boolean("WEBHOOK_ALLOW_PRIVATE_URLS"))
  const publicBaseUrl = yield* Config.option(Config.String("PUBLIC_BASE_URL"))
  const metricsToken = yield* Config.option(Config.Redacted("METRICS_TOKEN"))
  const metricsPort = yield* Config.option(Config.Int("METRICS_PORT"))
  // Traces (Tracing.ts): the standard OpenTelemetry variables; the headers may carry a collector's key.
  const tracesUrl = tracesUrlOf({
    OTEL_SDK_DISABLED: Option.getOrUndefined(yield* Config.option(Config.String("OTEL_SDK_DISABLED"))),
    OTEL_EXPORTER_OTLP_ENDPOINT: Option.getOrUndefined(
      yield* Config.option(Config.String("OTEL_EXPORTER_OTLP_ENDPOINT"))
    ),
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: Option.getOrUndefined(
      yield* Config.option(Config.String("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
    )
  })
  const otlpHeaders = yield* Config.option(Config.Redacted("OTEL_EXPORTER_OTLP_HEADERS"))
  const serviceName = yield* Config.String("OTEL_SERVICE_NAME").pipe(Config.withDefault("svc-api"))
  const rpcUrlConfig = yield* Config.option(rpcUrlsConfig())
  // Redacted: the SMTP URL carries the mail server's password.
  const smtpUrl = yield* Config.option(Config.Redacted("SMTP_URL"))
  const mailFrom = yield* Config.option(Config.String("MAIL_FROM"))
  const inviteTtlDays = yield* Config.Int("INVITE_TTL_DAYS").pipe(Config.withDefault(7))
  const rateLimits: RateLimitSettings = {
    perIp: yield* Config.Int("RATE_LIMIT_PER_IP").pipe(Config.withDefault(defaultRateLimits.perIp)),
    perUser: yield* Config.Int("RATE_LIMIT_PER_USER").pipe(Config.withDefault(defaultRateLimits.perUser)),
    bytesPerUser: yield* Config.Int("RATE_LIMIT_BYTES_PER_USER").pipe(
      Config.withDefault(defaultRateLimits.bytesPerUser ?? 0)
    ),
    signIn: yield* Config.Int("RATE_LIMIT_SIGN_IN").pipe(Config.withDefault(defaultRateLimits.signIn)),
    trustProxy: yield* Config.Boolean("TRUST_PROXY").pipe(Config.withDefault(false))
  }
  const requestTimeoutMillis = yield* Config.Int("REQUEST_TIMEOUT_MS").pipe(
    Config.withDefault(Server.defaultTimeouts.requestMillis)
  )
  const headersTimeoutMillis = yield* Config.Int("HEADERS_TIMEOUT_MS").pipe(
    Config.withDefault(Server.defaultTimeouts.headersMillis)
  )
  const shutdownGraceMillis = yield* Config.Int("SHUTDOWN_GRACE_MS").pipe(
    Config.withDefault(Server.defaultTimeouts.shutdownGraceMillis)
  )
  const settlementWaitMillis = yield* Config.option(Config.Int("SETTLEMENT_WAIT_MS"))
  // Retention (docs/operations.md): days each kind is kept once done (fractions allowed; 0 keeps it for ever).
  const retentionDays = (name: string, fallback: number) =>
    Config.Number(name).pipe(
      Config.withDefault(fallback / 86_400_000),
      Config.map((days) => Math.round(days * 86_400_000))
    )
  const retention = {
    windows: {
      events: yield* retentionDays("RETENTION_EVENTS_DAYS", defaultRetention.events),
      deliveries: yield* retentionDays("RETENTION_DELIVERIES_DAYS", defaultRetention.deliveries),
      requests: yield* retentionDays("RETENTION_REQUESTS_DAYS", defaultRetention.requests),
      mails: yield* retentionDays("RETENTION_MAILS_DAYS", defaultRetention.mails),
      transactions: yield* retentionDays("RETENTION_TRANSACTIONS_DAYS", defaultRetention.transactions)
    },
    every: Duration.millis(yield* Config.Int("RETENTION_EVERY_MS").pipe(Config.withDefault(600_000)))
  }
  // v1 on the API itself (decision 0074): off unless asked for; the dates go in each answer's headers.
  const serveV1 = yield* Config.Boolean("SERVE_V1").pipe(Config.withDefault(false))
  const v1DeprecatedSince = yield* Config.option(Config.String("V1_DEPRECATED_SINCE"))
  const v1Sunset = yield* Config.option(Config.String("V1_SUNSET"))
  const issuedMaxBytes = yield* Config.option(Config.Int("ISSUED_REQUESTS_MAX_BYTES"))
  const issuedMaxCount = yield* Config.option(Config.Int("ISSUED_REQUESTS_MAX_COUNT"))
  const relayerConfigured =
    Option.isSome(yield* Config.option(Config.Redacted("RELAYER_PRIVATE_KEY"))) ||
    Option.isSome(yield* Config.option(Config.Redacted("RELAYER_PRIVATE_KEYS")))
  const dataDirectory = dataDirectoryOf(Option.getOrUndefined(yield* Config.option(Config.String("SVC_DATA_DIR"))))
  const embedded = Option.isNone(mongoUriConfig)
  // The embedded chain is our own anvil: never deploy test contracts to a node named by RPC_URL.
  const embeddedChain = embedded && Option.isNone(rpcUrlConfig)
  const chainId = embeddedChain ? embeddedChainId : yield* Config.Int("CHAIN_ID").pipe(Config.withDefault(42161))

  if (!embedded && Option.isNone(secretConfig)) return yield* refuse("JWT_SECRET is required when MONGODB_URI is set")
  if (!embedded && Option.isNone(publicBaseUrl)) {
    return yield* refuse("PUBLIC_BASE_URL is required when MONGODB_URI is set: it is the sign-in domain")
  }
  // Invite mails carry single-use tokens: production sends them, never logs them.
  if (!embedded && Option.isNone(smtpUrl)) {
    return yield* refuse("SMTP_URL is required when MONGODB_URI is set: invite mails are sent through it")
  }
  if (inviteTtlDays < 1) return yield* refuse("INVITE_TTL_DAYS must be at least 1")
  if (Math.min(rateLimits.perIp, rateLimits.perUser, rateLimits.signIn, rateLimits.bytesPerUser ?? 0) < 0) {
    return yield* refuse("RATE_LIMIT_PER_IP, RATE_LIMIT_PER_USER and RATE_LIMIT_SIGN_IN must be 0 (no limit) or more")
  }
  if (Math.min(requestTimeoutMillis, headersTimeoutMillis) < 1 || shutdownGraceMillis < 0) {
    return yield* refuse("REQUEST_TIMEOUT_MS and HEADERS_TIMEOUT_MS must be at least 1, SHUTDOWN_GRACE_MS at least 0")
  }
  if (Option.exists(settlementWaitMillis, (n) => n < 1)) return yield* refuse("SETTLEMENT_WAIT_MS must be at least 1")
  if (Option.exists(issuedMaxBytes, (n) => n < 1) || Option.exists(issuedMaxCount, (n) => n < 1)) {
    return yield* refuse("ISSUED_REQUESTS_MAX_BYTES and ISSUED_REQUESTS_MAX_COUNT must be at least 1")
  }
  if (!embedded && Option.isNone(webhookKeyConfig)) {
    return yield* refuse("WEBHOOK_SECRET_KEY is required when MONGODB_URI is set: it seals the webhook signing secrets")
  }
  if (Option.isSome(webhookKeyConfig) && Redacted.value(webhookKeyConfig.value).length < 32) {
    return yield* refuse("WEBHOOK_SECRET_KEY must be at least 32 characters")
  }
  if (Option.isSome(secretConfig) && Redacted.value(secretConfig.value).length < 32) {
    return yield* refuse("JWT_SECRET must be at least 32 characters")
  }
  const v1Dates = { deprecatedSince: Option.map(v1DeprecatedSince, dateOf), sunset: Option.map(v1Sunset, dateOf) }
  if (Option.exists(v1Dates.deprecatedSince, Number.isNaN) || Option.exists(v1Dates.sunset, Number.isNaN)) {
    return yield* refuse("V1_DEPRECATED_SINCE and V1_SUNSET must be dates (2027-01-01 or 2027-01-01T00:00:00Z)")
  }

  // Embedded: the data directory must be usable before anything is written to it, and the database is opened (and
  // refused if it is from a newer schema) before anything else starts.
  if (embedded) yield* prepareDataDirectory(dataDirectory)
  const storage = yield* Layer.build(
    Server.storage(
      Option.isSome(mongoUriConfig)
        ? {
            _tag: "mongo",
            uri: Redacted.value(mongoUriConfig.value),
            database: Option.getOrUndefined(database),
            timeouts: mongoTimeouts
          }
        : { _tag: "sqlite", filename: databaseFileOf(dataDirectory) }
    )
  )
  // One process per data directory while it runs its own anvil: a second start stops here, naming the first, before
  // it starts anvil or writes anything (opening the database, which SQLite shares safely, changes nothing; a refused
  // one leaves no lock file). With a chain of its own (`RPC_URL`) any number of processes share the database: their
  // relayer keys are leased per send (decision 0060), every other claim was already leased in the store.
  if (embeddedChain) yield* lockDataDirectory(dataDirectory)
  const kept: EmbeddedState | undefined = embedded ? yield* readEmbeddedState(dataDirectory) : undefined
  const state: EmbeddedState & { readonly webhookSecretKey: string } = {
    ...kept,
    jwtSecret: kept?.jwtSecret ?? randomBytes(48).toString("base64url"),
    relayerKeys: kept?.relayerKeys ?? [kept?.relayerKey ?? generatePrivateKey(), generatePrivateKey()],
    webhookSecretKey: kept?.webhookSecretKey ?? randomBytes(32).toString("base64url")
  }
  const jwtSecret = Option.getOrElse(secretConfig, () => Redacted.make(state.jwtSecret))
  const webhookSecretKey = Option.getOrElse(webhookKeyConfig, () => Redacted.make(state.webhookSecretKey))

  // anvil loads the saved chain itself as it starts (`--load-state`), whatever its size.
  const anvil =
    embeddedChain && Option.isNone(rpcUrlConfig)
      ? yield* startRestartableAnvil({ stateFile: chainStateFileOf(dataDirectory) })
      : undefined
  const rpcUrl = Option.isSome(rpcUrlConfig) ? Redacted.value(rpcUrlConfig.value) : anvil?.rpcUrl
  // Acquired after anvil, so its last save runs before anvil stops.
  const persisted = anvil === undefined ? undefined : yield* persistAnvilState({ anvil })
  // Only embedded addresses are logged: production URIs may carry credentials.
  if (embedded) {
    const restored = persisted?.savedAt !== undefined ? " (chain restored)" : ""
    yield* Effect.logInfo(
      `embedded SQLite at ${databaseFileOf(dataDirectory)}, ${embeddedChain ? `anvil at ${rpcUrl}${restored}` : "no chain"}`
    )
  }

  const options: Server.ServerOptions = {
    port,
    host,
    storage: Layer.succeedContext(storage),
    jwtSecret,
    webhookSecretKey,
    // DESIGN §5b: https only in production; loopback and private addresses by default in embedded mode only.
    webhookUrls: { requireHttps: !embedded, allowPrivate: Option.getOrElse(allowPrivateConfig, () => embedded) },
    chainId,
    publicBaseUrl: Option.getOrUndefined(publicBaseUrl),
    // Without SMTP_URL (embedded only) mails are written to the log.
    mailer: Option.isSome(smtpUrl)
      ? SmtpMailer.layer({ url: smtpUrl.value, from: Option.getOrUndefined(mailFrom) })
      : undefined,
    inviteTtlDays,
    rateLimits,
    requestTimeoutMillis,
    headersTimeoutMillis,
    shutdownGraceMillis,
    settlementWaitMillis: Option.getOrUndefined(settlementWaitMillis),
    retention,
    issuedRequests: {
      ...(Option.isSome(issuedMaxBytes) ? { maxBytes: issuedMaxBytes.value } : {}),
      ...(Option.isSome(issuedMaxCount) ? { maxCount: issuedMaxCount.value } : {})
    },
    // With a node to ask, contract wallets (ERC-1271, ERC-6492) can sign in too.
    signatureVerifier: rpcUrl === undefined ? undefined : ChainSignatureVerifier.layer(rpcUrl),
    // Metrics: open on the embedded server; in production only on METRICS_PORT or behind METRICS_TOKEN, never
    // public by accident.
    metrics:
      Option.isSome(metricsToken) || Option.isSome(metricsPort) || embedded
        ? { token: Option.getOrUndefined(metricsToken), port: Option.getOrUndefined(metricsPort) }
        : undefined,
    v1: serveV1
      ? {
          deprecatedSince: Option.getOrUndefined(Option.map(v1Dates.deprecatedSince, (ms) => new Date(ms))),
          sunset: Option.getOrUndefined(Option.map(v1Dates.sunset, (ms) => new Date(ms)))
        }
      : undefined,
    traces:
      tracesUrl === undefined
        ? undefined
        : {
            url: tracesUrl,
            headers: otlpHeadersOf(Option.match(otlpHeaders, { onNone: () => undefined, onSome: Redacted.value })),
            serviceName
          }
  }
  // Embedded mode deploys the contracts on anvil once (a restored chain keeps them): the team balances come from the
  // chain, and the demo is funded.
  const chain =
    embeddedChain && rpcUrl !== undefined
      ? yield* Layer.build(
          EmbeddedChain.layer({
            rpcUrl,
            chainId: embeddedChainId,
            relayerKeys: (state.relayerKeys ?? []).map((key) => Redacted.make(key)),
            suite: state.suite,
            batch: yield* BatchConfig
          })
          // Its relayer journals into the store (DESIGN §6).
        ).pipe(Effect.provide(storage), Effect.catchTag("ContractsVersionMismatch", refuseVersion), Effect.orDie)
      : undefined
  // Production serves payments when the chain is configured (RELAYER_PRIVATE_KEY and the addresses, ChainSettings).
  const productionChain =
    !embeddedChain && relayerConfigured
      ? yield* Layer.build(ViemChainGateway.layerConfig).pipe(
          Effect.provide(storage),
          Effect.catchTag("ContractsVersionMismatch", refuseVersion),
          Effect.orDie
        )
      : undefined
  // A restored chain may be up to a second behind the records: send again what it lost, before serving.
  const resend = (savedAt: number | undefined) =>
    chain === undefined
      ? Effect.void
      : resendLostExecutions(savedAt).pipe(
          Effect.provide(Layer.merge(Layer.succeedContext(storage), Layer.succeedContext(chain))),
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
  const chainLayer =
    gateway === undefined
      ? undefined
      : Layer.merge(
          Layer.succeed(ChainGateway, Context.get(gateway, ChainGateway)),
          supervision === undefined ? Layer.empty : Layer.succeed(ChainSupervision, supervision)
        )
  const server = yield* Layer.build(
    Server.layer({
      ...options,
      chain: chainLayer,
      teamBalances: chainLayer === undefined ? undefined : TeamBalances.layerChain.pipe(Layer.provide(chainLayer))
    })
  )
  // With the chain, this process also runs the intent runner, finishes what dead processes left, and follows deposits
  // (any number of processes may: decisions 0018, 0063, 0064). Embedded mode reads deposits from the first block, so
  // the demo funding is the demo team's first deposit; production from `DEPOSITS_FROM_BLOCK`, else from its first start.
  if (chainLayer !== undefined) {
    const confirmations = embedded
      ? 1
      : yield* Config.Int("CHAIN_CONFIRMATIONS").pipe(Config.withDefault(defaultConfirmations), Effect.orDie)
    const fromBlock = yield* Config.option(Config.Int("DEPOSITS_FROM_BLOCK")).pipe(Effect.orDie)
    yield* Layer.build(
      Layer.mergeAll(
        IntentRunner.layer({ worker: `api-${process.pid}` }),
        AbandonedExecutions.layer(),
        DepositFollower.layer({
          holder: `api-${process.pid}-${randomUUID()}`,
          confirmations,
          startBlock: embedded ? 0 : Option.getOrUndefined(fromBlock)
        })
      ).pipe(Layer.provide(Layer.succeedContext(server)))
    )
  }
  const address = yield* HttpServer.addressFormattedWith((url) => Effect.succeed(url)).pipe(Effect.provide(server))
  const baseUrl = options.publicBaseUrl ?? address
  if (embedded) {
    const plan = state.demo ?? (yield* planDemo.pipe(Effect.provide(server)))
    yield* writeEmbeddedState(dataDirectory, {
      ...state,
      suite: chain === undefined ? state.suite : Context.get(chain, EmbeddedChain).suite,
      demo: plan
    })
    const fund =
      chain === undefined
        ? undefined
        : (owner: Address, team: TeamId) =>
            Effect.gen(function* () {
              const gateway = Context.get(chain, ChainGateway)
              const created = yield* gateway.createAccount(owner, svcAccountSaltOf(team))
              // Funded when the account is new on this chain: a restored chain keeps the balance it had.
              const usdc = created.transactionHash === undefined ? 0n : 100_000n * 10n ** 6n
              if (usdc > 0n) yield* Context.get(chain, EmbeddedChain).mint(created.account, usdc)
              return { account: created.account, usdc }
            }).pipe(Effect.orDie)
    // One command, as anyone outside would send money: the token's owner mints to the account, through anvil's RPC
    // (impersonated, so no key is printed); the deposit follower then reports it.
    const sendUsdcCommand =
      chain === undefined || rpcUrl === undefined
        ? undefined
        : (account: Address) => {
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
    // A JSON log stays one object per line: the summary is then a log line too.
    const print = (yield* logFormat) === "json" ? (text: string) => Effect.logInfo(text) : undefined
    yield* seedDemo({ plan, baseUrl, fund, sendUsdcCommand, print }).pipe(Effect.provide(server))
    yield* persisted?.save ?? Effect.void
  }
  yield* Effect.logInfo(`svc API at ${baseUrl} (docs at ${baseUrl}/docs, OpenAPI at ${baseUrl}/openapi.json)`)
  return yield* Effect.never
}).pipe(
  Effect.scoped,
  // What the operator can fix is said in one line, without a stack trace.
  Effect.catchTags({
    StartRefused: (error) => report(error.message),
    DataDirectoryError: (error) => report(error.message),
    SqliteOpenFailed: (error) => report(error.message),
    SqliteSchemaTooNew: (error) => report(error.message),
    MongoUnreachable: (error) => report(error.message),
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
/** How log lines are written: `LOG_FORMAT`, and `LOG_LEVEL` (the least level written, default `info`). */
const logging = Effect.gen(function* () {
  const format = yield* logFormat
  const level = yield* Config.Literals(
    ["all", "trace", "debug", "info", "warn", "error", "fatal", "none"],
    "LOG_LEVEL"
  ).pipe(Config.withDefault("info" as const))
  return Layer.merge(
    format === "json" ? Logger.layer([Logger.consoleJson]) : Layer.empty,
    Layer.succeed(References.MinimumLogLevel, logLevels[level])
  )
})

const logLevels = {
  all: "All",
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
} as const satisfies Record<string, LogLevel.LogLevel>

NodeRuntime.runMain(Effect.provide(main, Layer.unwrap(logging)), {
  teardown: (exit, onExit) =>
    Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause) ? onExit(0) : Runtime.defaultTeardown(exit, onExit)
})
