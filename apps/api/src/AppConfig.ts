/**
 * What `npm start` reads from its environment (README, "Configuration (production)"), read and checked before anything starts: a
 * value the operator can fix is refused in one line (`StartRefused`), never half-applied.
 */

import { resolve } from "node:path"
import { embeddedChainId } from "@svc/adapters/embedded"
import { type ContractsVersionMismatch, defaultConfirmations, rpcUrlConfig as rpcUrlsConfig } from "@svc/adapters/evm"
import { defaultRateLimits, type RateLimitSettings } from "@svc/adapters/http/server"
import { defaultMongoTimeouts } from "@svc/adapters/mongo"
import { defaultRetention } from "@svc/domain/retention"
import { Config, Duration, Effect, Option, Redacted, Schema } from "effect"
import { dataDirectoryOf, readEmbeddedState } from "./EmbeddedData.ts"
import * as Server from "./Server.ts"
import { tracesUrlOf } from "./Tracing.ts"

/** A start refused for a reason the operator can fix: printed as one line, exit code 1. */
export class StartRefused extends Schema.TaggedError<StartRefused>()("StartRefused", { message: Schema.String }) {}

const refuse = (message: string) => Effect.fail(new StartRefused({ message }))

/** A date's time in milliseconds; NaN when it is not one. */
const dateOf = (text: string) => new Date(text).getTime()

/** Contracts of another version (decision 0060): refused, with what to do. */
export const refuseVersion = (error: ContractsVersionMismatch) => refuse(error.message)

/** The configuration, read and checked. */
export type AppConfig = Effect.Success<typeof readAppConfig>

/** Where data is kept: MongoDB (`MONGODB_URI`) or SQLite in the data directory (`SVC_DATA_DIR`). */
const storageConfig = Effect.gen(function* () {
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
  const dataDirectory = dataDirectoryOf(Option.getOrUndefined(yield* Config.option(Config.String("SVC_DATA_DIR"))))
  return { mongoUriConfig, database, mongoTimeouts, dataDirectory, mongo: Option.isSome(mongoUriConfig) }
})

/** The JWT and webhook secrets (`refusal`: required in production, at least 32 characters). */
const secretsConfig = Effect.gen(function* () {
  const secretConfig = yield* Config.option(Config.Redacted("JWT_SECRET"))
  const webhookKeyConfig = yield* Config.option(Config.Redacted("WEBHOOK_SECRET_KEY"))
  return { secretConfig, webhookKeyConfig }
})

/** Where the API listens and is reached, its limits and timeouts, and which webhook URLs it accepts. */
const httpConfig = Effect.gen(function* () {
  const port = yield* Config.Int("PORT").pipe(Config.withDefault(3000))
  const host = yield* Config.String("HOST").pipe(Config.withDefault("127.0.0.1"))
  const publicBaseUrl = yield* Config.option(Config.String("PUBLIC_BASE_URL"))
  const allowPrivateConfig = yield* Config.option(Config.Boolean("WEBHOOK_ALLOW_PRIVATE_URLS"))
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
  return {
    port,
    host,
    publicBaseUrl,
    allowPrivateConfig,
    rateLimits,
    requestTimeoutMillis,
    headersTimeoutMillis,
    shutdownGraceMillis
  }
})

/** Metrics and traces (Tracing.ts: the standard OpenTelemetry variables; the headers may carry a collector's key). */
const observabilityConfig = Effect.gen(function* () {
  const metricsToken = yield* Config.option(Config.Redacted("METRICS_TOKEN"))
  const metricsPort = yield* Config.option(Config.Int("METRICS_PORT"))
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
  return { metricsToken, metricsPort, tracesUrl, otlpHeaders, serviceName }
})

/** Invite mails: SMTP (required in production: they carry single-use tokens, sent, never logged). */
const mailConfig = Effect.gen(function* () {
  // Redacted: the SMTP URL carries the mail server's password.
  const smtpUrl = yield* Config.option(Config.Redacted("SMTP_URL"))
  const mailFrom = yield* Config.option(Config.String("MAIL_FROM"))
  const inviteTtlDays = yield* Config.Int("INVITE_TTL_DAYS").pipe(Config.withDefault(7))
  return { smtpUrl, mailFrom, inviteTtlDays }
})

/** Days a kind is kept once done (fractions allowed; 0 keeps it for ever), in milliseconds. */
const retentionDays = (name: string, fallback: number) =>
  Config.Number(name).pipe(
    Config.withDefault(fallback / 86_400_000),
    Config.map((days) => Math.round(days * 86_400_000))
  )

/** Payments' bounds, and retention (docs/operations.md). */
const paymentsConfig = Effect.gen(function* () {
  const settlementWaitMillis = yield* Config.option(Config.Int("SETTLEMENT_WAIT_MS"))
  const claimLeaseMillis = yield* Config.option(Config.Int("CLAIM_LEASE_MS"))
  const issuedMaxBytes = yield* Config.option(Config.Int("ISSUED_REQUESTS_MAX_BYTES"))
  const issuedMaxCount = yield* Config.option(Config.Int("ISSUED_REQUESTS_MAX_COUNT"))
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
  return { settlementWaitMillis, claimLeaseMillis, issuedMaxBytes, issuedMaxCount, retention }
})

/**
 * The chain: a node of the operator's (`RPC_URL`) with relayer keys, else, without MongoDB either, embedded mode's own
 * anvil. Embedded mode is that and nothing else (decision 0087): SQLite with `RPC_URL` is production, as MongoDB is.
 */
const chainConfig = (mongo: boolean) =>
  Effect.gen(function* () {
    const rpcUrlConfig = yield* Config.option(rpcUrlsConfig())
    const relayerKey = yield* Config.option(Config.Redacted("RELAYER_PRIVATE_KEY"))
    const relayerKeys = Option.orElse(yield* Config.option(Config.Redacted("RELAYER_PRIVATE_KEYS")), () => relayerKey)
    const relayerConfigured = Option.isSome(relayerKeys)
    // How many relayer keys there are (ChainSettings checks them), for the start-up line.
    const relayerKeyCount = Option.match(relayerKeys, {
      onNone: () => 0,
      onSome: (keys) =>
        Redacted.value(keys)
          .split(",")
          .filter((key) => key.trim() !== "").length
    })
    // The embedded chain is our own anvil: never deploy test contracts to a node named by RPC_URL.
    const embedded = !mongo && Option.isNone(rpcUrlConfig)
    const chainId = embedded ? embeddedChainId : yield* Config.Int("CHAIN_ID").pipe(Config.withDefault(42161))
    // Blocks on top before a transaction or deposit is final: one on the embedded anvil, which mines only when asked.
    const confirmations = embedded
      ? 1
      : yield* Config.Int("CHAIN_CONFIRMATIONS").pipe(Config.withDefault(defaultConfirmations))
    // Where the deposit follower starts on its first start (production; embedded mode reads from the first block).
    const depositsFromBlock = yield* Config.option(Config.Int("DEPOSITS_FROM_BLOCK"))
    // The embedded anvil's port (else the one kept in the data directory, else a free one); the start-up line names
    // the forwarder a production chain pays through.
    const anvilPort = yield* Config.option(Config.Port("ANVIL_PORT"))
    const forwarder = yield* Config.option(Config.String("FORWARDER_ADDRESS"))
    return {
      rpcUrlConfig,
      relayerConfigured,
      relayerKeyCount,
      embedded,
      chainId,
      confirmations,
      depositsFromBlock,
      anvilPort,
      forwarder
    }
  })

/** v1 on the API itself (decision 0074): off unless asked for; the dates go in each answer's headers. */
const v1Config = Effect.gen(function* () {
  const serveV1 = yield* Config.Boolean("SERVE_V1").pipe(Config.withDefault(false))
  const v1DeprecatedSince = yield* Config.option(Config.String("V1_DEPRECATED_SINCE"))
  const v1Sunset = yield* Config.option(Config.String("V1_SUNSET"))
  const v1Dates = { deprecatedSince: Option.map(v1DeprecatedSince, dateOf), sunset: Option.map(v1Sunset, dateOf) }
  // The web console's build (issue 40): the checkout's, which `npm start` builds when its sources changed.
  const consoleDirectory = yield* Config.String("CONSOLE_DIR").pipe(
    Config.withDefault(resolve(import.meta.dirname, "../../console/dist"))
  )
  return { serveV1, v1Dates, consoleDirectory }
})

/** Every variable, read (a value that does not parse fails here), not checked yet. */
const readAll = Effect.gen(function* () {
  const storage = yield* storageConfig
  return {
    ...storage,
    ...(yield* secretsConfig),
    ...(yield* httpConfig),
    ...(yield* observabilityConfig),
    ...(yield* mailConfig),
    ...(yield* paymentsConfig),
    ...(yield* chainConfig(storage.mongo)),
    ...(yield* v1Config)
  }
})

const isShort = (secret: Option.Option<Redacted.Redacted<string>>) =>
  Option.exists(secret, (value) => Redacted.value(value).length < 32)

/** What makes a start production, for the refusals that name it; `undefined` in embedded mode. */
const productionBy = (config: Effect.Success<typeof readAll>) =>
  config.embedded ? undefined : config.mongo ? "MONGODB_URI" : "RPC_URL"

/** The first thing the operator must fix, in this order; `undefined` when the configuration holds. */
const refusal = (config: Effect.Success<typeof readAll>): string | undefined => {
  const production = productionBy(config)
  const { rateLimits } = config
  if (production && Option.isNone(config.secretConfig)) return `JWT_SECRET is required when ${production} is set`
  if (production && Option.isNone(config.publicBaseUrl))
    return `PUBLIC_BASE_URL is required when ${production} is set: it is the sign-in domain`
  if (production && Option.isNone(config.smtpUrl))
    return `SMTP_URL is required when ${production} is set: invite mails are sent through it`
  if (production && Option.isNone(config.metricsToken) && Option.isNone(config.metricsPort))
    return `METRICS_TOKEN or METRICS_PORT is required when ${production} is set: /metrics shows the relayer's addresses, balances and nonces`
  if (config.inviteTtlDays < 1) return "INVITE_TTL_DAYS must be at least 1"
  if (Math.min(rateLimits.perIp, rateLimits.perUser, rateLimits.signIn, rateLimits.bytesPerUser ?? 0) < 0)
    return "RATE_LIMIT_PER_IP, RATE_LIMIT_PER_USER and RATE_LIMIT_SIGN_IN must be 0 (no limit) or more"
  if (Math.min(config.requestTimeoutMillis, config.headersTimeoutMillis) < 1 || config.shutdownGraceMillis < 0)
    return "REQUEST_TIMEOUT_MS and HEADERS_TIMEOUT_MS must be at least 1, SHUTDOWN_GRACE_MS at least 0"
  if (Option.exists(config.settlementWaitMillis, (n) => n < 1)) return "SETTLEMENT_WAIT_MS must be at least 1"
  if (Option.exists(config.claimLeaseMillis, (n) => n < 300)) return "CLAIM_LEASE_MS must be at least 300"
  if (Option.exists(config.issuedMaxBytes, (n) => n < 1) || Option.exists(config.issuedMaxCount, (n) => n < 1))
    return "ISSUED_REQUESTS_MAX_BYTES and ISSUED_REQUESTS_MAX_COUNT must be at least 1"
  if (production && Option.isNone(config.webhookKeyConfig))
    return `WEBHOOK_SECRET_KEY is required when ${production} is set: it seals the webhook signing secrets`
  if (isShort(config.webhookKeyConfig)) return "WEBHOOK_SECRET_KEY must be at least 32 characters"
  if (isShort(config.secretConfig)) return "JWT_SECRET must be at least 32 characters"
  if (Option.exists(config.v1Dates.deprecatedSince, Number.isNaN) || Option.exists(config.v1Dates.sunset, Number.isNaN))
    return "V1_DEPRECATED_SINCE and V1_SUNSET must be dates (2027-01-01 or 2027-01-01T00:00:00Z)"
  return undefined
}

/**
 * Before decision 0087 a SQLite start with `RPC_URL` sealed webhook secrets with a key it kept in `embedded.json`: the
 * refusal to start without `WEBHOOK_SECRET_KEY` says where that key is (never the key itself).
 */
const keptKeyHint = (config: Effect.Success<typeof readAll>, refused: string) =>
  config.mongo || !refused.startsWith("WEBHOOK_SECRET_KEY is required")
    ? Effect.succeed("")
    : readEmbeddedState(config.dataDirectory).pipe(
        Effect.map((kept) =>
          kept?.webhookSecretKey === undefined
            ? ""
            : `; ${config.dataDirectory}/embedded.json keeps the key earlier versions sealed them with: set it to its webhookSecretKey`
        ),
        Effect.orElseSucceed(() => "")
      )

/** Reads and checks every variable; fails with `StartRefused` on the first the operator must fix. */
export const readAppConfig = Effect.flatMap(readAll, (config) => {
  const refused = refusal(config)
  return refused === undefined
    ? Effect.succeed(config)
    : Effect.flatMap(keptKeyHint(config, refused), (hint) => refuse(`${refused}${hint}`))
})
